/* SPDX-License-Identifier: Apache-2.0
 *
 * cgroup_bpf.h - cgroup v2 device isolation through eBPF (libbpf)
 *
 * cgroup v2 has no devices files: a program of type
 * BPF_PROG_TYPE_CGROUP_DEVICE attached to a cgroup decides each open()
 * and mknod() of a device file by its processes, as Slurm 22.05's
 * cgroup/v2 plugin and runc do.  The program is cgroup_dev_program()'s
 * (the same rules v1 writes to devices.deny), loaded with
 * bpf_prog_load() and attached to the job's and the step's directories
 * with bpf_prog_attach(BPF_CGROUP_DEVICE, BPF_F_ALLOW_MULTI); it stays
 * attached, and loaded, until the cgroup is removed.  Needs root
 * (CAP_BPF and CAP_SYS_ADMIN) and a kernel with CONFIG_CGROUP_BPF.
 *
 * Only droverd and droverstepd link libbpf: they hand
 * cgroup_bpf_attach() to their cgroup root (cgroup_bpf_enable()), and
 * `drover down`, which links cgroup.c for its cleanup, needs none.
 */
#ifndef DROVER_NODED_CGROUP_BPF_H
#define DROVER_NODED_CGROUP_BPF_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "noded/cgroup_dev.h"

struct cgroup_root;

/* Load the device program denying 'rules' (n of them) and attach it to
 * the cgroup directory 'dir' (BPF_F_ALLOW_MULTI).  The program's fd is
 * closed: the attachment keeps it.  Does nothing when 'dir' has a device
 * program already (a job's directory, from its first step: the job's
 * rules are the same each time).  Returns 0, or -1 with 'error' (the
 * kernel refused the program: the verifier's first line; or the attach
 * failed: its errno text). */
int cgroup_bpf_attach(const char *dir, const struct cgroup_dev_rule *rules,
                      size_t n, drv_error_t *error);

/* How many device programs are attached to 'dir' itself (not its
 * parents'); -1 with errno when it cannot be asked. */
int cgroup_bpf_attached(const char *dir);

/* Whether this process can load a device program (a program denying
 * one device is loaded and closed).  Returns 0, or -1 with 'error'. */
int cgroup_bpf_probe(drv_error_t *error);

/* Give 'root' device isolation where it needs it (cgroup v2 with
 * ConstrainDevices=yes: cgroup_root_needs_dev_program()): probe, then
 * cgroup_root_set_dev_attach() with cgroup_bpf_attach().  When the
 * probe fails, says so (log_error with 'loud', else log_debug: droverd
 * says it once, each droverstepd quietly does the same) and leaves
 * 'root' without device isolation.  NULL is a no-op. */
void cgroup_bpf_enable(struct cgroup_root *root, bool loud);

#endif /* !DROVER_NODED_CGROUP_BPF_H */
