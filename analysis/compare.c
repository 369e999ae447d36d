/*
 * compare.c - results read back and compared; see compare.h.
 *
 * Each result is first reduced to one value per successful run for every
 * metric, because runs, not requests, are the independent repetitions: the
 * rank test and the change's interval work on those values. Histograms are
 * summed over the runs and tested apart (chi-square, EMD).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "../model/layout.h"
#include "compare.h"

static const char *const layer_name[CMP_NLAYER] = {
    "app.write", "write", "read", "nfs.write", "nfs.read"};

static char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d != NULL)
		memcpy(d, s, n);
	return d;
}

static const char *
str_at(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

/* A number at key: 1 when there, 0 when absent or not a number. */
static int
num_at(json_t *o, const char *key, double *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_number(v))
		return 0;
	*out = json_number_value(v);
	return 1;
}

static double
num_or0(json_t *o, const char *key)
{
	double v = 0;

	num_at(o, key, &v);
	return v;
}

static struct cmp_series *
series_get(
    struct cmp_result *r, const char *name, enum cmp_unit unit, int detail)
{
	struct cmp_series *s;

	for (size_t i = 0; i < r->nseries; i++)
		if (strcmp(r->series[i].name, name) == 0)
			return &r->series[i];
	s = realloc(r->series, (r->nseries + 1) * sizeof(*s));
	if (s == NULL)
		return NULL;
	r->series = s;
	s = &r->series[r->nseries++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->unit = unit;
	s->detail = detail;
	return s;
}

/* Appends one run's value to the series name; -1 when memory runs out. */
static int
put(struct cmp_result *r, const char *name, enum cmp_unit unit, int detail,
    double value)
{
	struct cmp_series *s = series_get(r, name, unit, detail);
	double *v;
	int64_t *k;

	if (s == NULL || (v = realloc(s->v, (s->n + 1) * sizeof(*v))) == NULL)
		return -1;
	s->v = v;
	if ((k = realloc(s->key, (s->n + 1) * sizeof(*k))) == NULL)
		return -1;
	s->key = k;
	s->key[s->n] = r->key;
	s->v[s->n++] = value;
	return 0;
}

static int
putf(struct cmp_result *r, enum cmp_unit unit, int detail, double value,
    const char *fmt, ...)
{
	char name[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	return put(r, name, unit, detail, value);
}

/*
 * A count from the file as uint64_t: the file is input, and converting a
 * negative or too large double is undefined, so those become 0.
 */
static uint64_t
to_u64(double v)
{
	return v >= 0 && v < 18446744073709551616.0 ? (uint64_t)v : 0;
}

/* Integer division, as the result's own mean_bytes. */
static double
mean_bytes(double bytes, double ops)
{
	return ops > 0 ? floor(bytes / ops) : 0;
}

/* Adds a size_hist object's buckets into h; its kind into kind. */
static void
hist_from_json(json_t *o, struct hist *h, char *kind, size_t kindlen)
{
	json_t *buckets = json_object_get(o, "buckets"), *b;
	size_t i;

	if (json_is_string(json_object_get(o, "kind")))
		snprintf(kind, kindlen, "%s", str_at(o, "kind"));
	json_array_foreach (buckets, i, b) {
		double min = 0, count = 0;

		if (num_at(b, "min_bytes", &min) && num_at(b, "count", &count))
			hist_add(h, to_u64(min), to_u64(count));
	}
}

/*
 * The devices whose statistics are the filesystem's: those with role "fs"
 * in the targets. Their names, joined by spaces, into buf; 0 when the
 * targets name none, and then every device counts.
 */
static int
fs_devices(json_t *doc, char *buf, size_t len)
{
	json_t *t, *d;
	size_t i, j;
	int n = 0;

	buf[0] = '\0';
	json_array_foreach (json_object_get(doc, "targets"), i, t) {
		json_array_foreach (json_object_get(t, "devices"), j, d) {
			if (strcmp(str_at(d, "role"), "fs") != 0)
				continue;
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			    n++ ? " " : "", str_at(d, "name"));
		}
	}
	return n;
}

static int
is_fs_device(const char *fsdevs, int fs_count, const char *name)
{
	size_t n = strlen(name);
	const char *p = fsdevs;

	if (fs_count == 0)
		return 1;
	if (n == 0)
		return 0;
	while ((p = strstr(p, name)) != NULL) {
		if ((p == fsdevs || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

/* Device figures summed over some phases. */
struct devsum {
	int seen;
	double ops[2], bytes[2], flushes, discards;
};

static void
devsum_phase(struct devsum *d, json_t *phase, const char *fsdevs, int fs_count)
{
	static const char *const dir[2] = {"read", "write"};
	json_t *dev;
	size_t i;

	json_array_foreach (json_object_get(phase, "devices"), i, dev) {
		if (!is_fs_device(fsdevs, fs_count, str_at(dev, "device")))
			continue;
		d->seen = 1;
		for (int k = 0; k < 2; k++) {
			json_t *x = json_object_get(dev, dir[k]);

			d->ops[k] += num_or0(x, "ops");
			d->bytes[k] += num_or0(x, "bytes");
		}
		d->flushes += num_or0(dev, "flushes");
		d->discards += num_or0(dev, "discards");
	}
}

static int
put_devsum(struct cmp_result *r, const char *prefix, int detail,
    const struct devsum *d)
{
	static const char *const dir[2] = {"write", "read"};
	static const int k_of[2] = {1, 0};

	if (!d->seen)
		return 0;
	for (int i = 0; i < 2; i++) {
		int k = k_of[i];

		if (putf(r, CMP_COUNT, detail, d->ops[k], "%s%s.ops", prefix,
		        dir[i]) == -1 ||
		    putf(r, CMP_BYTES, detail, d->bytes[k], "%s%s.bytes",
		        prefix, dir[i]) == -1 ||
		    putf(r, CMP_BYTES, detail,
		        mean_bytes(d->bytes[k], d->ops[k]), "%s%s.mean_bytes",
		        prefix, dir[i]) == -1)
			return -1;
	}
	if (putf(r, CMP_COUNT, detail, d->flushes, "%sflushes", prefix) == -1 ||
	    putf(r, CMP_COUNT, 1, d->discards, "%sdiscards", prefix) == -1)
		return -1;
	return 0;
}

/*
 * The NFS wire figures of a run, when it has them (kind "nfs"): calls and
 * bytes asked for per direction, COMMITs, and the size histograms of the
 * READ and WRITE calls as two more layers.
 */
static int
reduce_nfs(struct cmp_result *r, json_t *nfs)
{
	static const char *const dir[2] = {"write", "read"};
	static const int layer[2] = {CMP_LAYER_NFS_WRITE, CMP_LAYER_NFS_READ};

	if (!json_is_object(nfs))
		return 0;
	if (put(r, "nfs.rpc_calls", CMP_COUNT, 0, num_or0(nfs, "rpc_calls")) ==
	    -1)
		return -1;
	for (int k = 0; k < 2; k++) {
		json_t *x = json_object_get(nfs, dir[k]);

		if (!json_is_object(x))
			continue;
		if (putf(r, CMP_COUNT, 0, num_or0(x, "calls"), "nfs.%s.calls",
		        dir[k]) == -1 ||
		    putf(r, CMP_BYTES, 0, num_or0(x, "bytes_requested"),
		        "nfs.%s.bytes", dir[k]) == -1 ||
		    putf(r, CMP_BYTES, 0, num_or0(x, "mean_bytes"),
		        "nfs.%s.mean_bytes", dir[k]) == -1 ||
		    putf(r, CMP_COUNT, 0, num_or0(x, "errors"), "nfs.%s.errors",
		        dir[k]) == -1)
			return -1;
		r->has_layer[layer[k]] = 1;
		hist_from_json(json_object_get(x, "size_hist"),
		    &r->layer[layer[k]], r->layer_kind[layer[k]],
		    sizeof(r->layer_kind[0]));
	}
	if (json_is_object(json_object_get(nfs, "commit")) &&
	    put(r, "nfs.commit.calls", CMP_COUNT, 0,
	        num_or0(json_object_get(nfs, "commit"), "calls")) == -1)
		return -1;
	return 0;
}

/* Class figures summed over some phases' attribution. */
struct classsum {
	double ops[2][LAYOUT_NCLASS], bytes[2][LAYOUT_NCLASS];
};

static void
classsum_phase(struct classsum *s, json_t *a)
{
	static const char *const dir[2] = {"read", "write"};

	for (int k = 0; k < 2; k++) {
		json_t *cls =
		    json_object_get(json_object_get(a, dir[k]), "classes");

		for (int c = 0; c < LAYOUT_NCLASS; c++) {
			json_t *x = json_object_get(cls, layout_class_name(c));

			s->ops[k][c] += num_or0(x, "ops");
			s->bytes[k][c] += num_or0(x, "bytes");
		}
	}
}

/*
 * The rows of each class: write.class.CLASS.ops (shown), .bytes and
 * .mean_bytes, and read's, as detail.
 */
static int
put_classsum(struct cmp_result *r, const char *prefix, int detail,
    const struct classsum *s)
{
	static const char *const dir[2] = {"read", "write"};

	for (int k = 1; k >= 0; k--) {
		for (int c = 0; c < LAYOUT_NCLASS; c++) {
			const char *n = layout_class_name(c);
			int d = detail || k == 0;

			if (putf(r, CMP_COUNT, d, s->ops[k][c],
			        "%s%s.class.%s.ops", prefix, dir[k], n) == -1 ||
			    putf(r, CMP_BYTES, 1, s->bytes[k][c],
			        "%s%s.class.%s.bytes", prefix, dir[k],
			        n) == -1 ||
			    putf(r, CMP_BYTES, 1,
			        mean_bytes(s->bytes[k][c], s->ops[k][c]),
			        "%s%s.class.%s.mean_bytes", prefix, dir[k],
			        n) == -1)
				return -1;
		}
	}
	return 0;
}

/*
 * A run's transfers by class (its phases' attribution, model/layout.h),
 * over the run and per phase; nothing unless every phase was attributed,
 * since a sum over some of them would be read as the run's.
 */
static int
reduce_classes(struct cmp_result *r, json_t *phases)
{
	struct classsum all, one;
	json_t *ph, *a;
	size_t i;

	json_array_foreach (phases, i, ph) {
		a = json_object_get(ph, "attribution");
		if (!json_is_object(a) || json_object_get(a, "error") != NULL)
			return 0;
	}
	memset(&all, 0, sizeof(all));
	json_array_foreach (phases, i, ph) {
		char prefix[48];

		memset(&one, 0, sizeof(one));
		classsum_phase(&one, json_object_get(ph, "attribution"));
		classsum_phase(&all, json_object_get(ph, "attribution"));
		snprintf(prefix, sizeof(prefix), "%s.", str_at(ph, "phase"));
		if (put_classsum(r, prefix, 1, &one) == -1)
			return -1;
	}
	return put_classsum(r, "", 0, &all);
}

/* One successful run into the result's series and histograms. */
static int
reduce_run(struct cmp_result *r, json_t *run, const char *fsdevs, int fs_count)
{
	static const char *const tkey[3] = {"elapsed_ns", "user_ns", "sys_ns"};
	static const char *const tname[3] = {"elapsed", "user", "sys"};
	json_t *phases = json_object_get(run, "phases"), *ph;
	double tot[3] = {0, 0, 0}, app_ops = 0, app_bytes = 0;
	struct devsum dev;
	int app = 0, unseen = 0;
	size_t i;

	if (reduce_nfs(r, json_object_get(run, "nfs")) == -1)
		return -1;
	if (json_array_size(phases) == 0)
		return 0;
	/* The job's time is that of its phases but the clean-up. */
	json_array_foreach (phases, i, ph) {
		if (strcmp(str_at(ph, "phase"), "remove") == 0)
			continue;
		for (int k = 0; k < 3; k++)
			tot[k] += num_or0(ph, tkey[k]);
	}
	for (int k = 0; k < 3; k++)
		if (put(r, tname[k], CMP_NS, 0, tot[k]) == -1)
			return -1;
	json_array_foreach (phases, i, ph) {
		for (int k = 0; k < 3; k++) {
			double v;

			if (num_at(ph, tkey[k], &v) &&
			    putf(r, CMP_NS, 0, v, "%s.%s", str_at(ph, "phase"),
			        tname[k]) == -1)
				return -1;
		}
	}

	/* A command's write() calls are not seen: no app layer at all. */
	json_array_foreach (phases, i, ph)
		unseen |= !json_is_object(json_object_get(ph, "app_write"));
	memset(&dev, 0, sizeof(dev));
	json_array_foreach (phases, i, ph) {
		json_t *aw = json_object_get(ph, "app_write"), *d;
		size_t j;

		devsum_phase(&dev, ph, fsdevs, fs_count);
		if (!unseen) {
			app = 1;
			app_ops += num_or0(aw, "ops");
			app_bytes += num_or0(aw, "bytes");
			r->has_layer[CMP_LAYER_APP] = 1;
			hist_from_json(json_object_get(aw, "size_hist"),
			    &r->layer[CMP_LAYER_APP],
			    r->layer_kind[CMP_LAYER_APP],
			    sizeof(r->layer_kind[0]));
		}
		json_array_foreach (json_object_get(ph, "devices"), j, d) {
			if (!is_fs_device(
			        fsdevs, fs_count, str_at(d, "device")))
				continue;
			for (int l = CMP_LAYER_WRITE; l <= CMP_LAYER_READ;
			     l++) {
				json_t *x = json_object_get(
				    d, l == CMP_LAYER_WRITE ? "write" : "read");

				r->has_layer[l] = 1;
				hist_from_json(json_object_get(x, "size_hist"),
				    &r->layer[l], r->layer_kind[l],
				    sizeof(r->layer_kind[0]));
			}
		}
	}
	if (put_devsum(r, "", 0, &dev) == -1)
		return -1;
	if (app &&
	    (put(r, "app.write.ops", CMP_COUNT, 0, app_ops) == -1 ||
	        put(r, "app.write.bytes", CMP_BYTES, 0, app_bytes) == -1 ||
	        put(r, "app.write.mean_bytes", CMP_BYTES, 0,
	            mean_bytes(app_bytes, app_ops)) == -1))
		return -1;

	/* The device figures of each phase alone, for --all and gates. */
	json_array_foreach (phases, i, ph) {
		char prefix[48];

		memset(&dev, 0, sizeof(dev));
		devsum_phase(&dev, ph, fsdevs, fs_count);
		snprintf(prefix, sizeof(prefix), "%s.", str_at(ph, "phase"));
		if (put_devsum(r, prefix, 1, &dev) == -1)
			return -1;
	}
	return reduce_classes(r, phases);
}

void
cmp_result_free(struct cmp_result *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->nseries; i++) {
		free(r->series[i].v);
		free(r->series[i].key);
	}
	free(r->series);
	free(r->path);
	free(r->label);
	free(r->kind);
	free(r->archive);
	free(r->probe);
	free(r->resolution);
	free(r->devices);
	free(r->target);
	free(r->accel);
	free(r->kernel_release);
	free(r);
}

static const char *
basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL && s[1] != '\0' ? s + 1 : path;
}

void
cmp_machine_tag(const struct cmp_machine *m, const char *accel, unsigned dims,
    const char *sep, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
#define TAG(...)                                                               \
	do {                                                                   \
		if (n < len)                                                   \
			n += (size_t)snprintf(                                 \
			    buf + n, len - n, "%s", n > 0 ? sep : "");         \
		if (n < len)                                                   \
			n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__);  \
	} while (0)
	if (dims & CMP_M_KIND)
		TAG("%s", m->uml ? "uml" : "qemu");
	if (dims & CMP_M_DISK)
		TAG("%s", m->virtio ? "virtio" : "ubd");
	if (dims & CMP_M_MODEL)
		TAG("model:%08x", m->model);
	if (dims & CMP_M_SCHED)
		TAG("sched:%s", m->sched[0] != '\0' ? m->sched : "default");
	if (dims & CMP_M_ACCEL)
		TAG("%s", accel);
	if (dims & CMP_M_CPUS)
		TAG("%dcpu", m->cpus);
	if (dims & CMP_M_MEM)
		TAG("%dM", m->mem_mib);
	if (dims & CMP_M_QUEUES)
		TAG("%dq", m->queues);
	if (dims & CMP_M_CLOCK) {
		if (m->uml)
			TAG("time-travel");
		else if (m->icount_shift < 0)
			TAG("realtime");
		else
			TAG("icount:%d", m->icount_shift);
	}
#undef TAG
}

void
cmp_machine_names(unsigned dims, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *name;
	} knobs[] = {{CMP_M_KIND, "machine kind (QEMU, UML)"},
	    {CMP_M_DISK, "UML's disk (ubd, virtio)"},
	    {CMP_M_MODEL, "the virtio disk's model"},
	    {CMP_M_SCHED, "the CPU scheduler's features"},
	    {CMP_M_ACCEL, "accel"}, {CMP_M_CPUS, "vCPUs"},
	    {CMP_M_MEM, "memory"}, {CMP_M_QUEUES, "virtio-blk queues"},
	    {CMP_M_CLOCK, "clock"}};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < sizeof(knobs) / sizeof(knobs[0]); k++)
		if ((dims & knobs[k].bit) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
			    n > 0 ? ", " : "", knobs[k].name);
}

/*
 * How vm judged the runs, from the "vm" object's "judged": a record that
 * is there but not one this reader understands is refused, since judging
 * at another level than vm's would give another verdict.
 */
static int
read_judged(struct cmp_result *r, json_t *vm, const char *name, char *err,
    size_t errlen)
{
	json_t *j = json_object_get(vm, "judged"), *looks, *look;
	const char *rule = str_at(j, "rule");
	double level = 0;
	size_t i;

	if (j == NULL)
		return 0;
	looks = json_object_get(j, "looks");
	if (!json_is_object(j) || !num_at(j, "level", &level) ||
	    !(level >= 0.5 && level < 1) ||
	    (strcmp(rule, "interval") != 0 &&
	        strcmp(rule, "significance") != 0) ||
	    !json_is_array(looks) || json_array_size(looks) == 0 ||
	    json_array_size(looks) > CMP_MAX_LOOKS)
		goto bad;
	json_array_foreach (looks, i, look) {
		if (!json_is_integer(look) || json_integer_value(look) < 1 ||
		    json_integer_value(look) > 1000000)
			goto bad;
		r->judged.look[i] = (unsigned)json_integer_value(look);
	}
	r->judged.nlook = json_array_size(looks);
	r->judged.level = level;
	snprintf(r->judged.rule, sizeof(r->judged.rule), "%s", rule);
	return 0;
bad:
	snprintf(err, errlen,
	    "'%s' says how it was judged (\"vm\" \"judged\") in a way this "
	    "ubcreplay does not read: a level between 0.5 and 1, a rule "
	    "(interval or significance) and 1 to %d looks",
	    name, CMP_MAX_LOOKS);
	return -1;
}

/*
 * The virtio disk's model as a hash of its values, where they were read
 * from left out: two results whose models hold the same values have the
 * same hash, and one from before a value was recorded (irq_ns) another.
 */
static uint32_t
model_hash(json_t *model)
{
	json_t *m = json_is_object(model) ? json_deep_copy(model) : NULL;
	char *text;
	uint32_t h = 2166136261u;

	if (m == NULL)
		return 0;
	json_object_del(m, "file");
	text = json_dumps(m, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(m);
	for (const char *p = text != NULL ? text : ""; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	free(text);
	return h;
}

/* vm.sched_features, its words joined by '+' so that a label holds it. */
static void
read_sched(struct cmp_machine *m, json_t *vm)
{
	snprintf(
	    m->sched, sizeof(m->sched), "%s", str_at(vm, "sched_features"));
	for (char *p = m->sched; *p != '\0'; p++)
		if (*p == ' ')
			*p = '+';
}

/* vm.design, when there is one: how the runs were laid out in time. */
static void
read_design(struct cmp_result *r, json_t *d)
{
	double rounds = 0, per = 0;

	if (!json_is_object(d))
		return;
	num_at(d, "rounds", &rounds);
	num_at(d, "runs_per_round", &per);
	r->rounds = rounds >= 1 ? to_u64(rounds) : 0;
	r->round_runs = per >= 1 ? to_u64(per) : 0;
	r->alternating = strcmp(str_at(d, "order"), "alternating") == 0;
}

/*
 * The guest a result was measured in, from its "vm" object: absent on the
 * host. An accelerator this reader does not know is refused, since whether
 * the times may be compared depends on it. Its machine is "qemu" when it
 * does not say (results before UML); a UML guest's accel is "uml".
 */
static int
read_vm(struct cmp_result *r, json_t *doc, const char *name, char *err,
    size_t errlen)
{
	json_t *vm = json_object_get(doc, "vm");
	const char *accel = str_at(vm, "accel");
	const char *kind = str_at(vm, "machine");
	double par = 1, cpus = 0, mem = 0, queues, shift = 0;
	int uml = strcmp(kind, "uml") == 0;

	if (vm == NULL) {
		r->accel = xstrdup("none");
		r->kernel_release = xstrdup("");
		r->parallel_guests = 1;
		return 0;
	}
	if (!json_is_object(vm) ||
	    (uml ? strcmp(accel, "uml") != 0
	         : strcmp(accel, "kvm") != 0 && strcmp(accel, "tcg") != 0)) {
		snprintf(err, errlen,
		    "'%s' has a \"vm\" object without a known accel (%s)", name,
		    uml ? "uml" : "kvm or tcg");
		return -1;
	}
	if (kind[0] != '\0' && strcmp(kind, "qemu") != 0 && !uml) {
		snprintf(err, errlen,
		    "'%s' has a \"vm\" object of an unknown machine (qemu or "
		    "uml)",
		    name);
		return -1;
	}
	num_at(vm, "parallel_guests", &par);
	/*
	 * Before these were recorded, vm gave QEMU's defaults: one virtio
	 * queue per vCPU and the host's real time.
	 */
	num_at(vm, "cpus", &cpus);
	num_at(vm, "mem_mib", &mem);
	queues = cpus;
	num_at(vm, "queues", &queues);
	if (!uml && strcmp(str_at(vm, "clock"), "icount") == 0)
		num_at(vm, "icount_shift", &shift);
	else
		shift = -1;
	num_at(vm, "calibration_ns", &r->calibration_ns);
	if (read_judged(r, vm, name, err, errlen) == -1)
		return -1;
	read_design(r, json_object_get(vm, "design"));
	r->machine.uml = uml;
	/* UML's disk was ubd before it was recorded. */
	r->machine.virtio = uml && strcmp(str_at(vm, "disk"), "virtio") == 0;
	/* ubd's model is the seed's (base_ns): it is not the machine's. */
	if (r->machine.virtio)
		r->machine.model =
		    model_hash(json_object_get(vm, "disk_model"));
	read_sched(&r->machine, vm);
	r->machine.cpus = (int)cpus;
	r->machine.mem_mib = (int)mem;
	r->machine.queues = (int)queues;
	r->machine.icount_shift = (int)shift;
	r->accel = xstrdup(accel);
	r->kernel_release = xstrdup(str_at(vm, "kernel_release"));
	r->parallel_guests = par >= 1 ? to_u64(par) : 1;
	return 0;
}

/* The successful runs of one boot, added to r. */
static int
reduce_runs(struct cmp_result *r, json_t *boot, json_t *runs,
    const char *fsdevs, int fs_count)
{
	json_t *run,
	    *seed = json_object_get(json_object_get(boot, "vm"), "seed");
	size_t i;

	r->runs += json_array_size(runs);
	json_array_foreach (runs, i, run) {
		if (strcmp(str_at(run, "status"), "ok") != 0)
			continue;
		r->runs_ok++;
		/* A seeded boot's runs are keyed for pairing (cmp_series). */
		r->key = json_is_integer(seed) &&
		        json_integer_value(seed) >= 0 &&
		        json_integer_value(seed) < INT64_MAX / 4096 && i < 4096
		    ? json_integer_value(seed) * 4096 + (int64_t)i
		    : -1;
		if (reduce_run(r, run, fsdevs, fs_count) == -1)
			return -1;
	}
	return 0;
}

struct cmp_result *
cmp_result_from_json(json_t *doc, const char *name, char *err, size_t errlen)
{
	json_t *schema, *tool, *runs, *boot, *wl, *t;
	char fsdevs[512], target[1024];
	struct cmp_result *r;
	const char *label;
	int fs_count;
	size_t i;

	if (!json_is_object(doc)) {
		snprintf(err, errlen,
		    "'%s' is not a ubcreplay result (not a "
		    "JSON object)",
		    name);
		return NULL;
	}
	schema = json_object_get(doc, "schema");
	tool = json_object_get(doc, "tool");
	if (!json_is_integer(schema) || json_integer_value(schema) < 1 ||
	    (tool != NULL && strcmp(str_at(tool, "name"), "ubcreplay") != 0)) {
		snprintf(err, errlen,
		    "'%s' is not a ubcreplay result (no "
		    "schema version)",
		    name);
		return NULL;
	}
	if (json_integer_value(schema) > RESULT_SCHEMA) {
		snprintf(err, errlen,
		    "'%s' has schema %lld, newer than this "
		    "ubcreplay reads (%d): compare it with a newer ubcreplay",
		    name, (long long)json_integer_value(schema), RESULT_SCHEMA);
		return NULL;
	}
	runs = json_object_get(doc, "runs");
	if (!json_is_array(runs)) {
		snprintf(err, errlen,
		    "'%s' is not a ubcreplay result (no "
		    "runs)",
		    name);
		return NULL;
	}

	if ((r = calloc(1, sizeof(*r))) == NULL)
		goto nomem;
	wl = json_object_get(doc, "workload");
	t = json_array_get(json_object_get(doc, "targets"), 0);
	label = str_at(doc, "label");
	fs_count = fs_devices(doc, fsdevs, sizeof(fsdevs));
	snprintf(target, sizeof(target), "%s%s%s", str_at(t, "fstype"),
	    *str_at(t, "options") ? " " : "", str_at(t, "options"));
	r->path = xstrdup(name);
	r->label = xstrdup(*label ? label : basename_of(name));
	r->kind = xstrdup(str_at(doc, "kind"));
	r->archive = xstrdup(str_at(wl, "archive"));
	r->archive_bytes = to_u64(num_or0(wl, "bytes"));
	r->archive_entries = to_u64(num_or0(wl, "entries"));
	r->probe = xstrdup(str_at(json_object_get(doc, "probe"), "name"));
	r->resolution =
	    xstrdup(str_at(json_object_get(doc, "probe"), "resolution"));
	r->devices = xstrdup(fsdevs);
	r->target = xstrdup(target);
	if (read_vm(r, doc, name, err, errlen) == -1) {
		cmp_result_free(r);
		return NULL;
	}
	if (r->path == NULL || r->label == NULL || r->kind == NULL ||
	    r->archive == NULL || r->probe == NULL || r->resolution == NULL ||
	    r->devices == NULL || r->target == NULL || r->accel == NULL ||
	    r->kernel_release == NULL)
		goto nomem;

	if (reduce_runs(r, doc, runs, fsdevs, fs_count) == -1)
		goto nomem;
	/* A guest's further boots of the same cell (vm -n MIN..MAX). */
	r->boots = 1;
	json_array_foreach (json_object_get(doc, "boots"), i, boot) {
		if (!json_is_array(json_object_get(boot, "runs")) ||
		    strcmp(str_at(boot, "kind"), r->kind) != 0) {
			snprintf(err, errlen,
			    "'%s': its boot %zu is not a result of the same "
			    "kind (\"%s\")",
			    name, i + 2, r->kind);
			cmp_result_free(r);
			return NULL;
		}
		fs_count = fs_devices(boot, fsdevs, sizeof(fsdevs));
		if (reduce_runs(r, boot, json_object_get(boot, "runs"), fsdevs,
		        fs_count) == -1)
			goto nomem;
		r->boots++;
	}
	if (r->runs == 0) {
		snprintf(err, errlen, "'%s' has no runs to compare", name);
		cmp_result_free(r);
		return NULL;
	}
	if (r->runs_ok == 0) {
		snprintf(err, errlen,
		    "'%s' has no successful run to compare "
		    "(all %zu failed)",
		    name, r->runs);
		cmp_result_free(r);
		return NULL;
	}
	return r;
nomem:
	snprintf(err, errlen, "cannot reduce '%s': out of memory", name);
	cmp_result_free(r);
	return NULL;
}

struct cmp_result *
cmp_result_load(const char *path, char *err, size_t errlen)
{
	struct cmp_result *r;
	json_t *doc;

	/* The one reader of result files checks the file is one. */
	if ((doc = result_load(path, err, errlen)) == NULL)
		return NULL;
	r = cmp_result_from_json(doc, path, err, errlen);
	json_decref(doc);
	return r;
}

const struct cmp_series *
cmp_result_series(const struct cmp_result *r, const char *name)
{
	for (size_t i = 0; i < r->nseries; i++)
		if (strcmp(r->series[i].name, name) == 0)
			return &r->series[i];
	return NULL;
}

static int
warn(struct cmp *c, const char *fmt, ...)
{
	char buf[1024], **w, *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if ((s = xstrdup(buf)) == NULL ||
	    (w = realloc(c->warn, (c->nwarn + 1) * sizeof(*w))) == NULL) {
		free(s);
		return -1;
	}
	c->warn = w;
	c->warn[c->nwarn++] = s;
	return 0;
}

/* What makes result b a less fair comparison with the baseline a. */
static int
fairness(struct cmp *c, const struct cmp_result *a, const struct cmp_result *b)
{
	if (strcmp(a->kind, b->kind) != 0 &&
	    warn(c, "'%s' is a %s result, the baseline '%s' a %s one", b->path,
	        b->kind, a->path, a->kind) == -1)
		return -1;
	/* Results of different kinds: the warning above says enough. */
	if (strcmp(a->kind, b->kind) == 0 &&
	    (strcmp(basename_of(a->archive), basename_of(b->archive)) != 0 ||
	        a->archive_bytes != b->archive_bytes ||
	        a->archive_entries != b->archive_entries) &&
	    warn(c,
	        "different archives: '%s' extracted %s (%llu entries, "
	        "%llu bytes), the baseline %s (%llu entries, %llu bytes)",
	        b->path, b->archive, (unsigned long long)b->archive_entries,
	        (unsigned long long)b->archive_bytes, a->archive,
	        (unsigned long long)a->archive_entries,
	        (unsigned long long)a->archive_bytes) == -1)
		return -1;
	if (strcmp(a->resolution, b->resolution) != 0 &&
	    warn(c,
	        "different probe resolutions: '%s' was measured %s "
	        "(%s), the baseline %s (%s); transfer sizes are not the same "
	        "quantity",
	        b->path, b->resolution, b->probe, a->resolution,
	        a->probe) == -1)
		return -1;
	if (strcmp(a->devices, b->devices) != 0 &&
	    warn(c, "different devices: '%s' on %s, the baseline on %s",
	        b->path, *b->devices ? b->devices : "no device",
	        *a->devices ? a->devices : "no device") == -1)
		return -1;
	return 0;
}

/*
 * Whether the results' times can be compared, and if not why, naming every
 * result and its accelerator: emulated (TCG) times run at the emulator's
 * pace, different accelerators time different machines, and guests run side
 * by side share the host's CPUs.
 */
static void
times_comparable(struct cmp *c)
{
	int tcg = 0, differ = 0, parallel = 0;
	size_t len;

	for (size_t i = 0; i < c->nresult; i++) {
		const struct cmp_result *r = c->result[i];

		tcg |= strcmp(r->accel, "tcg") == 0;
		differ |= strcmp(r->accel, c->result[0]->accel) != 0;
		parallel |= r->parallel_guests > 1;
	}
	c->emulated = tcg;
	c->times_ok = !tcg && !differ && !parallel;
	if (c->times_ok)
		return;
	snprintf(c->times_why, sizeof(c->times_why), "times of");
	for (size_t i = 0; i < c->nresult; i++) {
		const struct cmp_result *r = c->result[i];

		len = strlen(c->times_why);
		snprintf(c->times_why + len, sizeof(c->times_why) - len,
		    "%s '%s' (%s%s", i > 0 ? "," : "", r->path,
		    strcmp(r->accel, "none") == 0 ? "bare metal, accel none"
		                                  : r->accel,
		    r->parallel_guests > 1 ? ", parallel guests)" : ")");
	}
	len = strlen(c->times_why);
	snprintf(c->times_why + len, sizeof(c->times_why) - len,
	    " are not comparable:%s%s%s",
	    tcg ? " TCG times are emulated, not comparable with KVM or bare "
	          "metal;"
	        : "",
	    differ ? " the accelerators differ;" : "",
	    parallel ? " guests run in parallel share the CPUs;" : "");
	len = strlen(c->times_why);
	if (c->times_why[len - 1] == ';')
		c->times_why[len - 1] = '\0';
}

/*
 * The knobs of a guest's machine that move the sizes its kernel writes
 * (docs/vm-machine.md): the machine's kind (UML's simulated CPU and disk
 * model against QEMU's real-time guest), UML's disk, the virtio disk's
 * model and the guest's scheduler features (the completions' coalescing
 * and NO_WAKEUP_PREEMPTION moved the mean write by tens of percent), the
 * vCPUs, the virtio-blk queues, the clock and the accelerator (a CPU of
 * another speed). Memory, from 512 MiB to 2 GiB, moved them less than the
 * run-to-run spread.
 */
#define CMP_M_MATTERS                                                          \
	(CMP_M_KIND | CMP_M_DISK | CMP_M_MODEL | CMP_M_SCHED | CMP_M_ACCEL |   \
	    CMP_M_CPUS | CMP_M_QUEUES | CMP_M_CLOCK)

static unsigned
machine_diff(const struct cmp_result *a, const struct cmp_result *b)
{
	unsigned d = 0;

	/* Machines of two kinds differ in kind, said once. */
	if (a->machine.uml != b->machine.uml)
		d |= CMP_M_KIND;
	else
		d |= strcmp(a->accel, b->accel) != 0 ? CMP_M_ACCEL : 0;
	d |= a->machine.virtio != b->machine.virtio ? CMP_M_DISK : 0;
	d |= a->machine.virtio && b->machine.virtio &&
	        a->machine.model != b->machine.model
	    ? CMP_M_MODEL
	    : 0;
	d |= strcmp(a->machine.sched, b->machine.sched) != 0 ? CMP_M_SCHED : 0;
	d |= a->machine.cpus != b->machine.cpus ? CMP_M_CPUS : 0;
	d |= a->machine.mem_mib != b->machine.mem_mib ? CMP_M_MEM : 0;
	d |= a->machine.queues != b->machine.queues ? CMP_M_QUEUES : 0;
	d |= a->machine.icount_shift != b->machine.icount_shift ? CMP_M_CLOCK
	                                                        : 0;
	return d;
}

/* The label with each word of tag it does not hold yet ("2cpu 1q"). */
static int
label_tag(struct cmp_result *r, const char *tag)
{
	char *s = malloc(strlen(r->label) + strlen(tag) + 2), *save = NULL;
	char words[128];

	if (s == NULL)
		return -1;
	strcpy(s, r->label);
	snprintf(words, sizeof(words), "%s", tag);
	for (char *w = strtok_r(words, " ", &save); w != NULL;
	     w = strtok_r(NULL, " ", &save)) {
		size_t wl = strlen(w);
		const char *p = s;
		int has = 0;

		while (!has && (p = strstr(p, w)) != NULL) {
			has = (p == s || p[-1] == ' ') &&
			    (p[wl] == '\0' || p[wl] == ' ');
			p += wl;
		}
		if (!has)
			sprintf(s + strlen(s), " %s", w);
	}
	free(r->label);
	r->label = s;
	return 0;
}

/*
 * Whether the guests' machines differ, and in what: the labels of guest
 * results then carry the knobs that differ, so that the series and the
 * verdicts say which machine a row ran on; sizes are not judged across a
 * knob that moves them. Results from the host are not guests: they have no
 * machine to compare.
 */
static int
machines_comparable(struct cmp *c)
{
	const struct cmp_result *first = NULL;
	double cmin = 0, cmax = 0;
	char tag[192], names[256] = "";
	size_t len;

	c->sizes_ok = 1;
	for (size_t i = 0; i < c->nresult; i++) {
		const struct cmp_result *r = c->result[i];

		if (strcmp(r->accel, "none") == 0)
			continue;
		if (first == NULL)
			first = r;
		c->machine_differs |= machine_diff(first, r);
		if (r->calibration_ns > 0 && r->machine.icount_shift < 0) {
			cmin = cmin == 0 || r->calibration_ns < cmin
			    ? r->calibration_ns
			    : cmin;
			cmax =
			    r->calibration_ns > cmax ? r->calibration_ns : cmax;
		}
	}
	/*
	 * Under the host's real time a guest's CPU runs as fast as the host
	 * lets it, and the sizes follow (docs/vm-machine.md): say so when
	 * the guests' own calibrations are far apart.
	 */
	if (cmin > 0 && cmax > 2 * cmin &&
	    warn(c,
	        "the guests' CPUs ran at different speeds (their "
	        "calibration loops took %.0f to %.0f ms): under the host's "
	        "real time the sizes follow the host's load; --clock icount "
	        "fixes the speed",
	        cmin / 1e6, cmax / 1e6) == -1)
		return -1;
	if (c->machine_differs == 0)
		return 0;
	cmp_machine_names(c->machine_differs, names, sizeof(names));
	snprintf(c->sizes_why, sizeof(c->sizes_why),
	    "the guests' machines differ in %s:", names);
	for (size_t i = 0; i < c->nresult; i++) {
		struct cmp_result *r = c->result[i];

		if (strcmp(r->accel, "none") == 0)
			continue;
		cmp_machine_tag(&r->machine, r->accel, c->machine_differs, " ",
		    tag, sizeof(tag));
		len = strlen(c->sizes_why);
		snprintf(c->sizes_why + len, sizeof(c->sizes_why) - len,
		    "%s '%s' (%s)", r == first ? "" : ",", r->path, tag);
		if (label_tag(r, tag) == -1)
			return -1;
	}
	c->sizes_ok = (c->machine_differs & CMP_M_MATTERS) == 0;
	len = strlen(c->sizes_why);
	snprintf(c->sizes_why + len, sizeof(c->sizes_why) - len, "%s",
	    c->sizes_ok ? "; sizes compared (memory moved them less than the "
	                  "runs' spread)"
	                : "; the sizes a kernel writes depend on these "
	                  "(docs/vm-machine.md)");
	return warn(c, "%s", c->sizes_why);
}

/*
 * Whether sa's and sb's runs ran on the same seeds, each once: then *pa and
 * *pb (allocated) hold their values in the order of the keys, and 1 is
 * returned. 0 when they are not pairs, -1 when memory runs out.
 */
static int
pairs_of(const struct cmp_series *sa, const struct cmp_series *sb, double **pa,
    double **pb)
{
	size_t n = sa->n;

	*pa = *pb = NULL;
	if (n == 0 || sb->n != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (sa->key[i] < 0)
			return 0;
	if ((*pa = calloc(n, sizeof(**pa))) == NULL ||
	    (*pb = calloc(n, sizeof(**pb))) == NULL) {
		free(*pa);
		*pa = NULL;
		return -1;
	}
	/* Each of a's keys, in a's order, once in b (n is runs: tens). */
	for (size_t i = 0; i < n; i++) {
		size_t j, found = 0;

		for (size_t k = 0; k < n; k++)
			if (sa->key[k] == sa->key[i] && k != i)
				goto unpaired;
		for (j = 0; j < n; j++)
			if (sb->key[j] == sa->key[i]) {
				(*pb)[i] = sb->v[j];
				found++;
			}
		if (found != 1)
			goto unpaired;
		(*pa)[i] = sa->v[i];
	}
	return 1;
unpaired:
	free(*pa);
	free(*pb);
	*pa = *pb = NULL;
	return 0;
}

static int
compare_cell(const struct cmp *c, const struct cmp_series *sa,
    const struct cmp_series *sb, struct cmp_cell *cell, size_t result,
    char *err, size_t errlen)
{
	double *pa, *pb;
	int paired, rc;

	cell->present = sb != NULL && sb->n > 0;
	if (!cell->present)
		return 0;
	stats_summarize(sb->v, sb->n, &cell->sum);
	if (sa == NULL || sa->n == 0 || result == 0)
		return 0;
	{
		double ma = stats_median(sa->v, sa->n);

		if (ma != 0) {
			cell->ratio_valid = 1;
			cell->ratio = cell->sum.median / ma;
			cell->change_pct = (cell->ratio - 1) * 100;
		}
	}
	if ((paired = pairs_of(sa, sb, &pa, &pb)) == -1) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (paired) {
		cell->pairs = sa->n;
		stats_signedrank(pa, pb, sa->n, &cell->mw);
		cell->pmin = stats_sr_pmin(sa->n);
		rc = stats_change_paired(
		    pa, pb, sa->n, c->opts.level, &cell->ch, err, errlen);
		free(pa);
		free(pb);
	} else {
		stats_mannwhitney(sa->v, sa->n, sb->v, sb->n, &cell->mw);
		cell->pmin = stats_mw_pmin(sa->n, sb->n);
		rc = stats_change(sa->v, sa->n, sb->v, sb->n, c->opts.level,
		    &cell->ch, err, errlen);
	}
	if (rc == -1)
		return -1;
	if (cell->pmin > c->opts.alpha)
		cell->verdict = CMP_TOO_FEW;
	else if (cell->mw.p < c->opts.alpha)
		cell->verdict = CMP_CHANGED;
	else
		cell->verdict = CMP_SAME;
	return 0;
}

size_t
cmp_change_runs(const struct cmp *c, const struct cmp_series *sa,
    const struct cmp_series *sb, const struct cmp_cell *cell, double limit)
{
	double *pa, *pb;
	size_t n;

	if (cell->pairs == 0)
		return stats_change_runs(sa->v, sa->n, sb->v, sb->n, &cell->ch,
		    c->opts.level, limit);
	if (pairs_of(sa, sb, &pa, &pb) != 1)
		return SIZE_MAX;
	n = stats_change_paired_runs(
	    pa, pb, sa->n, &cell->ch, c->opts.level, limit);
	free(pa);
	free(pb);
	return n;
}

static int
add_row(struct cmp *c, const struct cmp_series *s)
{
	struct cmp_row *row;

	for (size_t i = 0; i < c->nrow; i++)
		if (strcmp(c->row[i].name, s->name) == 0)
			return 0;
	row = realloc(c->row, (c->nrow + 1) * sizeof(*row));
	if (row == NULL)
		return -1;
	c->row = row;
	row = &c->row[c->nrow];
	row->name = s->name;
	row->unit = s->unit;
	row->detail = s->detail;
	if ((row->cell = calloc(c->nresult, sizeof(*row->cell))) == NULL)
		return -1;
	c->nrow++;
	return 0;
}

static void
compare_hists(struct cmp *c)
{
	for (int l = 0; l < CMP_NLAYER; l++) {
		const struct cmp_result *a = c->result[0];
		struct cmp_hist *h0 = &c->hist[l][0];

		h0->present = a->has_layer[l] && hist_total(&a->layer[l]) > 0;
		h0->median_bucket =
		    stats_median_bucket(a->layer[l].count, HIST_NBUCKETS);
		for (size_t i = 1; i < c->nresult; i++) {
			const struct cmp_result *b = c->result[i];
			struct cmp_hist *h = &c->hist[l][i];

			h->median_bucket = stats_median_bucket(
			    b->layer[l].count, HIST_NBUCKETS);
			h->present = h0->present && b->has_layer[l] &&
			    hist_total(&b->layer[l]) > 0;
			if (!h->present)
				continue;
			stats_chi2_hist(a->layer[l].count, b->layer[l].count,
			    HIST_NBUCKETS, &h->chi2);
			h->emd_buckets = stats_emd_hist(a->layer[l].count,
			    b->layer[l].count, HIST_NBUCKETS);
			h->shift_buckets = stats_shift_hist(a->layer[l].count,
			    b->layer[l].count, HIST_NBUCKETS);
			h->verdict = h->chi2.valid &&
			        h->chi2.p < c->opts.alpha &&
			        h->emd_buckets >= c->opts.emd_min
			    ? CMP_CHANGED
			    : CMP_SAME;
		}
	}
}

struct cmp *
cmp_new(struct cmp_result **r, size_t n, const struct cmp_opts *opts, char *err,
    size_t errlen)
{
	struct cmp *c = calloc(1, sizeof(*c));

	if (c == NULL || (c->result = calloc(n, sizeof(*c->result))) == NULL) {
		free(c);
		for (size_t i = 0; i < n; i++)
			cmp_result_free(r[i]);
		snprintf(err, errlen, "cannot compare: out of memory");
		return NULL;
	}
	c->opts = *opts;
	c->nresult = n;
	memcpy(c->result, r, n * sizeof(*r));
	for (int l = 0; l < CMP_NLAYER; l++)
		if ((c->hist[l] = calloc(n, sizeof(*c->hist[l]))) == NULL)
			goto nomem;

	for (size_t i = 0; i < n; i++) {
		if (r[i]->runs_ok < r[i]->runs &&
		    warn(c,
		        "'%s': %zu of %zu runs failed; comparing the %zu "
		        "that succeeded",
		        r[i]->path, r[i]->runs - r[i]->runs_ok, r[i]->runs,
		        r[i]->runs_ok) == -1)
			goto nomem;
		if (i > 0 && fairness(c, r[0], r[i]) == -1)
			goto nomem;
		/* Rows: the baseline's metrics, then any new ones in order. */
		for (size_t s = 0; s < r[i]->nseries; s++)
			if (add_row(c, &r[i]->series[s]) == -1)
				goto nomem;
	}
	for (size_t k = 0; k < c->nrow; k++) {
		struct cmp_row *row = &c->row[k];
		const struct cmp_series *sa =
		    cmp_result_series(r[0], row->name);

		for (size_t i = 0; i < n; i++)
			if (compare_cell(c, sa,
			        cmp_result_series(r[i], row->name),
			        &row->cell[i], i, err, errlen) == -1) {
				cmp_free(c);
				return NULL;
			}
	}
	compare_hists(c);
	times_comparable(c);
	if (machines_comparable(c) == -1)
		goto nomem;
	if (!c->times_ok && warn(c, "%s", c->times_why) == -1)
		goto nomem;
	return c;
nomem:
	cmp_free(c);
	snprintf(err, errlen, "cannot compare: out of memory");
	return NULL;
}

void
cmp_free(struct cmp *c)
{
	if (c == NULL)
		return;
	for (size_t k = 0; k < c->nrow; k++)
		free(c->row[k].cell);
	free(c->row);
	for (size_t i = 0; i < c->nwarn; i++)
		free(c->warn[i]);
	free(c->warn);
	for (int l = 0; l < CMP_NLAYER; l++)
		free(c->hist[l]);
	for (size_t i = 0; i < c->nresult; i++)
		cmp_result_free(c->result[i]);
	free(c->result);
	free(c);
}

const struct cmp_row *
cmp_row_find(const struct cmp *c, const char *name)
{
	for (size_t k = 0; k < c->nrow; k++)
		if (strcmp(c->row[k].name, name) == 0)
			return &c->row[k];
	return NULL;
}

const char *
cmp_layer_name(int layer)
{
	return layer_name[layer];
}
