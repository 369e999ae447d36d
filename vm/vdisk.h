/*
 * vdisk.h - a virtio-blk disk of our own for a User Mode Linux guest on
 * simulated time: the guest runs the kernel's real virtio_blk driver,
 * blk-mq and I/O scheduler over UML's virtio transport (virtio_uml,
 * vhost-user on a unix socket), and this process is both the disk and the
 * clock. Three parts, called one way (the server calls the device and the
 * model, the device calls the model):
 *
 *   vdisk_model_*  the disk model (vm/vdisk_model.c): data, not code, read
 *                  from a small text file; it says when a request that
 *                  arrives at a simulated time completes;
 *   vublk_*        the vhost-user-blk device (vm/vublk.c): the vhost-user
 *                  messages, the guest's memory, the virtqueue, the image
 *                  file; each request's host I/O is done when it is taken
 *                  from the ring, and its completion is held back until
 *                  the simulated time the model gives;
 *   vdisk_serve    the time-travel scheduler and the loop (vm/uml_sched.c):
 *                  the guest's simulated time is ours (time-travel=ext,
 *                  include/uapi/linux/um_timetravel.h), so a completion
 *                  reaches the guest at its time, whatever the host did.
 *
 * The same model, image and guest command line give the same sequence of
 * completions, at the same simulated times, run after run.
 *
 *	struct vdisk_model m;
 *	char err[256];
 *	if (vdisk_model_read("disk.model", &m, err, sizeof(err)) == -1)
 *		...;
 *	rc = vdisk_serve(&(struct vdisk_conf){ .model = m,
 *	    .image = "disk.img", .dir = "/tmp/x" }, argv, &status, err,
 *	    sizeof(err));
 */
#ifndef VDISK_H
#define VDISK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The disk: one server that moves one request's bytes at a time, at
 * ns_per_kib, plus latency_ns per request beside the transfer; at most
 * depth requests in the device (the rest wait in the virtqueue, where the
 * guest put them); a flush waits for every transfer before it and costs
 * latency_ns + flush_ns. Nothing completes sooner than latency_ns after
 * it is taken, and a completion reaches the guest at the next multiple of
 * irq_ns (0: at its own time), with every other due by then: a coalescing
 * interrupt. So the guest may run that long, to that multiple, without
 * asking the clock.
 * What the guest is told: the segments a request may have (seg_max), the
 * bytes one segment may hold (size_max, 0: no limit), the logical block
 * size (blk_size), one queue.
 *
 * The guest's own work, charged in its simulated time by its kernel
 * (uml_cpu=, contrib/uml-patches/0004; 0 charges nothing): each system
 * call cpu_syscall_ns, each KiB copied between user and kernel memory
 * cpu_kib_ns, each bio submitted cpu_bio_ns and cpu_bio_kib_ns a KiB it
 * carries. With cpu_bio_yield 1 (uml_bio_yield, contrib/uml-patches/0005)
 * a task that submits a bio without a plug yields the CPU first, so that
 * the queue's run it left to kblockd happens at once, as on a second CPU.
 *
 * The guest idles settle_ns of simulated time after its boot, before it
 * mounts the disk and starts the job (0: not at all). A UML boot takes
 * 0.2 s of it where a real guest's takes seconds, and the block layer
 * keys state on the time since the disk appeared: wbt takes every window
 * of its first second for one of writes only and lets more writes in
 * flight with each (docs/vm-machine.md, "Writeback throttling's state").
 */
struct vdisk_model {
	int64_t latency_ns;
	int64_t ns_per_kib;
	int64_t flush_ns;
	int64_t irq_ns;
	int64_t cpu_syscall_ns;
	int64_t cpu_kib_ns;
	int64_t cpu_bio_ns;
	int64_t cpu_bio_kib_ns;
	uint32_t depth;
	uint32_t seg_max;
	uint32_t size_max;
	uint32_t blk_size;
	uint32_t num_queues;
	uint32_t cpu_bio_yield;
	int64_t settle_ns;
};

/* The model's state: when its transfer server is next free. */
struct vdisk_model_state {
	int64_t busy_until_ns;
};

/* The defaults (what a model file does not say). */
void vdisk_model_default(struct vdisk_model *m);
/*
 * Reads a model file: "KEY VALUE" a line, # starts a comment; every key
 * is one of struct vdisk_model's fields, named as there. An unknown key, a
 * value that is not a number in range (nor what a guest would take as it
 * is: a power of two for blk_size), a key twice, or a line that is not
 * text is an error naming the file and line; so is a file that sets no
 * key at all. 0, or -1 with the message in err.
 */
int vdisk_model_read(
    const char *path, struct vdisk_model *m, char *err, size_t errlen);
/* What vdisk_model_cpu_arg's words ask of the guest's kernel. */
#define VDISK_CPU_CHARGES 1 /* uml_cpu=, contrib/uml-patches/0004 */
#define VDISK_CPU_YIELD   2 /* uml_bio_yield, contrib/uml-patches/0005 */

/*
 * The guest's command-line words for m's CPU (charges, uml_cpu=S,K,B,BK,
 * read by contrib/uml-patches/0004; the yield, uml_bio_yield, 0005) into
 * buf, separated by a space, or "" when m asks for neither. Returns what
 * they ask: VDISK_CPU_CHARGES, VDISK_CPU_YIELD, both or 0.
 */
int vdisk_model_cpu_arg(const struct vdisk_model *m, char *buf, size_t len);
/*
 * When a request of bytes (flush: a flush) that the device takes at now_ns
 * completes; advances the state.
 */
int64_t vdisk_model_done_ns(const struct vdisk_model *m,
    struct vdisk_model_state *st, int64_t now_ns, uint64_t bytes, int flush);
/*
 * The earliest a request the device takes at now_ns or later can reach the
 * guest as completed, whatever the state: latency_ns on, at an irq_ns.
 */
int64_t vdisk_model_earliest_ns(const struct vdisk_model *m, int64_t now_ns);

struct vublk;

/*
 * The device for the image file (opened read-write; its size, rounded
 * down to 512 bytes, is the disk's capacity). NULL with the message in err.
 */
struct vublk *vublk_open(
    const char *image, const struct vdisk_model *m, char *err, size_t errlen);
void vublk_close(struct vublk *d);
/*
 * One vhost-user message from the guest's socket fd, handled at simulated
 * now_ns (a kick takes requests from the ring then). 1 when one was
 * handled, 0 when none was waiting (nonblocking), -1 on the peer's end or
 * a protocol error (the message in err; "closed" at a clean end).
 */
int vublk_message(
    struct vublk *d, int fd, int64_t now_ns, char *err, size_t errlen);
/* The simulated time of the next completion, or -1 when none is due. */
int64_t vublk_next_ns(const struct vublk *d);
/*
 * Completes every request due by now_ns: its status and used-ring entry
 * are written, then one VRING_CALL goes to the guest on the slave channel,
 * asking for a reply. Returns 1 when a call was sent (the caller then
 * waits for the reply with vublk_call_done), 0 when none, -1 on error.
 */
int vublk_complete(struct vublk *d, int64_t now_ns, char *err, size_t errlen);
/* The slave channel's fd (-1 before the guest gave one). */
int vublk_slave_fd(const struct vublk *d);
/* Reads the guest's reply to the call. 0, or -1 with the message. */
int vublk_call_done(struct vublk *d, char *err, size_t errlen);

/* What the device did, for the report. */
struct vublk_stats {
	uint64_t reads, writes, flushes, other;
	uint64_t read_bytes, write_bytes;
	int64_t last_done_ns;
};
void vublk_stats(const struct vublk *d, struct vublk_stats *s);

struct vdisk_conf {
	struct vdisk_model model;
	const char *image;
	/* Where the two sockets go: DIR/vublk.sock and DIR/time.sock. */
	const char *dir;
};

/*
 * Listens on DIR/vublk.sock (vhost-user, the guest connects:
 * virtio_uml.device=DIR/vublk.sock:2) and DIR/time.sock (the guest's
 * clock: time-travel=ext:DIR/time.sock), starts argv (the UML kernel and
 * its command line), serves the disk and the clock until it exits, and
 * removes the sockets. 0 with the child's wait status in *status, or -1
 * with the message in err (the child is killed and reaped).
 */
int vdisk_serve(const struct vdisk_conf *c, char *const argv[], int *status,
    struct vublk_stats *st, char *err, size_t errlen);

#endif
