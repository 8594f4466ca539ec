/* SPDX-License-Identifier: Apache-2.0
 *
 * cgroup_dev.h - which device files a job's cgroup denies (ConstrainDevices)
 *
 * One policy for cgroup v1 and v2, as Slurm 22.05's task/cgroup has it:
 * every device is allowed but the node's GRES device files (gres.conf
 * File=) that the job or step was not given, which are denied for read,
 * write and mknod.  Each denied file becomes a rule (its type and
 * major:minor, from stat()); v1 writes each rule to devices.deny
 * ("c 195:1 rwm"), v2 turns the list into an eBPF program of type
 * BPF_PROG_TYPE_CGROUP_DEVICE (built here as instructions, so no BPF
 * compiler is needed; loaded and attached by cgroup_bpf.c, which only the
 * daemons link, with libbpf).  A job's cgroup has the job's rules and a
 * step's the step's; the kernel applies both (v1: the hierarchy, v2:
 * programs attached with BPF_F_ALLOW_MULTI must all allow).
 *
 * Pure but for stat(): linked into every program that links cgroup.c.
 */
#ifndef DROVER_NODED_CGROUP_DEV_H
#define DROVER_NODED_CGROUP_DEV_H

#include <stddef.h>

#include <linux/bpf.h>

/* One denied device. */
struct cgroup_dev_rule {
    char type;           /* 'c' (character) or 'b' (block) */
    unsigned major, minor;
};

/* The rules for the device files 'files' (NULL-terminated, or NULL):
 * *out (free()) and their count.  A file that is not a device (missing,
 * a regular file) is logged and left out, as it cannot be opened as a
 * device anyway. */
size_t cgroup_dev_rules(const char *const *files,
                        struct cgroup_dev_rule **out);

/* v1's devices.deny line for 'r': "c 195:1 rwm" into 'buf' (at least
 * CGROUP_DEV_V1_MAX bytes).  Returns buf. */
#define CGROUP_DEV_V1_MAX 48
char *cgroup_dev_v1_text(const struct cgroup_dev_rule *r, char *buf);

/* The eBPF device program denying 'rules' and allowing the rest:
 * instructions into 'insns' (CGROUP_DEV_INSNS(n) of them at most).
 * Returns how many it wrote.  The program returns 0 (refused: the
 * open() or mknod() fails with EPERM) for a rule's device, else 1. */
#define CGROUP_DEV_INSNS(n) (6 + 5 * (n))
size_t cgroup_dev_program(const struct cgroup_dev_rule *rules, size_t n,
                          struct bpf_insn *insns);

#endif /* !DROVER_NODED_CGROUP_DEV_H */
