/* SPDX-License-Identifier: GPL-2.0 */
/* biolatency-lite: kernel <-> user ABI. */
#ifndef BPFLITE_BIOLATENCY_H
#define BPFLITE_BIOLATENCY_H

#include "abi/hist_abi.h"

/*
 * Requests between issue (or insert, -Q) and completion, keyed by their
 * struct request. In-flight requests number at most the sum of the
 * queue depths (hundreds on most hosts): 10240 is plenty, and a start
 * that does not fit is counted in loss.map_full. Entries of requests
 * that never complete are aged out by user space (BIOLAT_MAX_AGE_S).
 */
#define BIOLAT_MAX_RQS		10240
#define BIOLAT_MAX_AGE_S	600
/* Histograms per disk (-D) or per flag set (-F). */
#define BIOLAT_MAX_HISTS	1024

enum biolat_by {
	BY_ALL = 0,
	BY_DISK,	/* key: dev_t of the disk, kernel form (major << 20 | minor) */
	BY_FLAGS,	/* key: BIO_OP_* | BIO_F_* */
	BY_DISK_OP,	/* --serve; key: the disk's dev_t | operation class << BIO_OPC_SHIFT */
};

/*
 * BY_DISK_OP: a disk's kernel dev_t in the low 29 bits (block majors are
 * below 512, so none is lost) and its operation class above them.
 */
#define BIO_OPC_SHIFT	29
#define BIO_OPC_OTHER	4	/* classes 0-3 are BIO_OP_READ .. BIO_OP_DISCARD */

#define BIO_MINORBITS	20

/*
 * -F keys, stable across kernels (the kernel's REQ_OP_* numbers and
 * __REQ_* bits moved; the BPF side maps them by name with CO-RE). The low
 * byte is the operation, in bcc's numbering where bcc has one.
 */
enum bio_op {
	BIO_OP_READ = 0,
	BIO_OP_WRITE = 1,
	BIO_OP_FLUSH = 2,
	BIO_OP_DISCARD = 3,
	BIO_OP_SECURE_ERASE = 5,
	BIO_OP_ZONE_RESET = 6,
	BIO_OP_WRITE_SAME = 7,
	BIO_OP_WRITE_ZEROES = 9,
	BIO_OP_ZONE_APPEND = 10,
	BIO_OP_ZONE_OPEN = 11,
	BIO_OP_ZONE_CLOSE = 12,
	BIO_OP_ZONE_FINISH = 13,
	BIO_OP_ZONE_RESET_ALL = 14,
	BIO_OP_DRV_IN = 15,
	BIO_OP_DRV_OUT = 16,
	BIO_OP_UNKNOWN = 255,
};
#define BIO_OP_MASK		0xff

/* The request flags bcc's biolatency -F names. */
#define BIO_F_SYNC		(1u << 8)
#define BIO_F_META		(1u << 9)
#define BIO_F_PRIO		(1u << 10)
#define BIO_F_NOMERGE		(1u << 11)
#define BIO_F_IDLE		(1u << 12)
#define BIO_F_FUA		(1u << 13)
#define BIO_F_RAHEAD		(1u << 14)
#define BIO_F_BACKGROUND	(1u << 15)
#define BIO_F_NOWAIT		(1u << 16)

#endif
