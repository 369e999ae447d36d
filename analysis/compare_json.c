/*
 * compare_json.c - a comparison and its gates as one JSON document
 * (docs/json.md, "A comparison"): what compare prints, for a CI job to
 * read rather than parse text.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "../model/outfile.h"
#include "gate.h"

static const char *
unit_name(enum cmp_unit u)
{
	return u == CMP_NS ? "ns" : u == CMP_BYTES ? "bytes" : "count";
}

static const char *
verdict_name(enum cmp_verdict v)
{
	return v == CMP_CHANGED ? "changed"
	    : v == CMP_SAME     ? "same"
	    : v == CMP_TOO_FEW  ? "too_few"
	                        : "none";
}

/* A ratio as a change in percent; null for an unbounded end. */
static json_t *
pct(double ratio)
{
	return isfinite(ratio) ? json_real((ratio - 1) * 100) : json_null();
}

/* The estimate and interval of a change, into o. */
static int
put_change(json_t *o, const struct stats_change *ch)
{
	if (!ch->valid)
		return json_object_set_new(o, "estimate_pct", json_null());
	return json_object_set_new(o, "estimate_pct", pct(ch->est)) |
	    json_object_set_new(
	        o, "interval_pct", json_pack("[oo]", pct(ch->lo), pct(ch->hi)));
}

static json_t *
results(const struct cmp *c)
{
	json_t *a = json_array();

	for (size_t i = 0; a != NULL && i < c->nresult; i++) {
		const struct cmp_result *r = c->result[i];

		if (json_array_append_new(a,
		        json_pack("{sssssIsIsIsI}", "label", r->label, "path",
		            r->path, "runs", (json_int_t)r->runs, "runs_ok",
		            (json_int_t)r->runs_ok, "boots",
		            (json_int_t)r->boots, "rounds",
		            (json_int_t)r->rounds)) == -1) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *
metric(const struct cmp *c, const struct cmp_row *row)
{
	json_t *m = json_pack(
	    "{ssss}", "name", row->name, "unit", unit_name(row->unit));
	json_t *ch = json_array();
	int bad = m == NULL || ch == NULL ||
	    json_object_set_new(m, "changes", ch) == -1;

	for (size_t i = 1; !bad && i < c->nresult; i++) {
		const struct cmp_cell *cell = &row->cell[i];
		json_t *o;

		if (!cell->present || !row->cell[0].present)
			continue;
		o = json_pack("{sIsfsssf}", "result", (json_int_t)i, "median",
		    cell->sum.median, "verdict", verdict_name(cell->verdict),
		    "p", cell->mw.p);
		bad = o == NULL || put_change(o, &cell->ch) == -1 ||
		    json_object_set_new(
		        o, "pairs", json_integer((json_int_t)cell->pairs)) ||
		    json_array_append_new(ch, o) == -1;
	}
	if (bad) {
		json_decref(m);
		return NULL;
	}
	return m;
}

static json_t *
verdict(const struct gate_verdict *v)
{
	json_t *o = json_pack("{sssssisfsIss}", "spec", v->gate->spec, "metric",
	    v->gate->metric, "direction", v->gate->direction, "limit_pct",
	    v->gate->limit_pct, "result", (json_int_t)v->result, "outcome",
	    gate_outcome_name(v->outcome));

	if (o == NULL || put_change(o, &v->ch) == -1 ||
	    json_object_set_new(
	        o, "pairs", json_integer((json_int_t)v->pairs)) == -1 ||
	    json_object_set_new(o, "runs_to_decide",
	        v->outcome != GATE_UNDECIDED || v->runs == SIZE_MAX
	            ? json_null()
	            : json_integer((json_int_t)v->runs)) == -1) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *
cmp_to_json(
    const struct cmp *c, const struct gate_verdict *v, size_t nv, int rule)
{
	json_t *doc = json_pack("{sisssfsfss}", "schema", 1, "kind",
	    "comparison", "alpha", c->opts.alpha, "level", c->opts.level,
	    "gate_rule", gate_rule_name((enum gate_rule)rule));
	json_t *m = json_array(), *g = json_array();
	int bad = doc == NULL || m == NULL || g == NULL ||
	    json_object_set_new(doc, "results", results(c)) == -1 ||
	    json_object_set(doc, "metrics", m) == -1 ||
	    json_object_set(doc, "gates", g) == -1 ||
	    json_object_set_new(
	        doc, "status", json_integer(gate_status(v, nv))) == -1;

	for (size_t k = 0; !bad && k < c->nrow; k++)
		bad = json_array_append_new(m, metric(c, &c->row[k])) == -1;
	for (size_t i = 0; !bad && i < nv; i++)
		bad = json_array_append_new(g, verdict(&v[i])) == -1;
	json_decref(m);
	json_decref(g);
	if (bad) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

int
cmp_json_write(const struct cmp *c, const struct gate_verdict *v, size_t nv,
    int rule, const char *path, char *err, size_t errlen)
{
	json_t *doc = cmp_to_json(c, v, nv, rule);
	struct outfile of;

	if (doc == NULL) {
		snprintf(err, errlen, "cannot write '%s': out of memory", path);
		return -1;
	}
	if (outfile_open(&of, path, "comparison", err, errlen) == -1) {
		json_decref(doc);
		return -1;
	}
	if (json_dumpf(doc, of.fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ==
	        -1 ||
	    fputc('\n', of.fp) == EOF) {
		snprintf(err, errlen, "cannot write '%s'", path);
		outfile_abort(&of);
		json_decref(doc);
		return -1;
	}
	json_decref(doc);
	return outfile_commit(&of, err, errlen);
}
