/* SPDX-License-Identifier: Apache-2.0
 *
 * cgroup_bpf.c - the eBPF device program loaded and attached (cgroup_bpf.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/bpf_dl.h"
#include "noded/cgroup.h"
#include "noded/cgroup_bpf.h"

#define VERIFIER_LOG 4096

/* The first line of the verifier's log, or the errno text. */
static int load_failed(const char *log, drv_error_t *error)
{
    int saved_errno = errno;

    if (log[0])
        errprintf(error, "the kernel refused the eBPF device program: %s "
                  "(%.*s)", strerror(saved_errno), (int)strcspn(log, "\n"),
                  log);
    else
        errprintf(error, "cannot load the eBPF device program: %s",
                  strerror(saved_errno));
    errno = saved_errno;
    return -1;
}

/* The program for 'rules' loaded: its fd, or -1 with 'error'. */
static int load(const struct cgroup_dev_rule *rules, size_t n,
                drv_error_t *error)
{
    struct bpf_insn *insns = xzalloc(CGROUP_DEV_INSNS(n) * sizeof(*insns));
    size_t count = cgroup_dev_program(rules, n, insns);
    char *log = xzalloc(VERIFIER_LOG);
    LIBBPF_OPTS(bpf_prog_load_opts, opts);
    int fd;

    if (bpf_dl_load(error) < 0) {
        free(insns);
        free(log);
        return -1;
    }
    fd = bpf_prog_load(BPF_PROG_TYPE_CGROUP_DEVICE, "drover_devices",
                       "Apache-2.0", insns, count, &opts);
    if (fd < 0) {
        /* again with the verifier's log, to say why */
        opts.log_buf = log;
        opts.log_size = VERIFIER_LOG;
        opts.log_level = 1;
        fd = bpf_prog_load(BPF_PROG_TYPE_CGROUP_DEVICE, "drover_devices",
                           "Apache-2.0", insns, count, &opts);
        if (fd < 0)
            load_failed(log, error);
    }
    free(insns);
    free(log);
    return fd;
}

int cgroup_bpf_attach(const char *dir, const struct cgroup_dev_rule *rules,
                      size_t n, drv_error_t *error)
{
    int prog, cg, rc;

    if (cgroup_bpf_attached(dir) > 0) /* the job's, from its first step */
        return 0;
    if ((prog = load(rules, n, error)) < 0)
        return -1;
    cg = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (cg < 0) {
        int saved_errno = errno;
        close(prog);
        errno = saved_errno;
        return errprintf(error, "cannot open %s: %s", dir, strerror(errno));
    }
    rc = bpf_prog_attach(prog, cg, BPF_CGROUP_DEVICE, BPF_F_ALLOW_MULTI);
    if (rc < 0) {
        int saved_errno = errno;
        errprintf(error, "cannot attach the eBPF device program to %s: %s",
                  dir, strerror(saved_errno));
        errno = saved_errno;
    }
    close(cg);
    close(prog);
    return rc < 0 ? -1 : 0;
}

int cgroup_bpf_attached(const char *dir)
{
    drv_error_t error = {{0}};
    __u32 count = 0, flags = 0;
    int cg, rc;

    if (bpf_dl_load(&error) < 0) {
        log_debug("cgroup v2: %s", error.text);
        return -1;
    }
    if ((cg = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)) < 0)
        return -1;
    rc = bpf_prog_query(cg, BPF_CGROUP_DEVICE, 0, &flags, NULL, &count);
    close(cg);
    return rc < 0 ? -1 : (int)count;
}

int cgroup_bpf_probe(drv_error_t *error)
{
    static const struct cgroup_dev_rule one = { 'c', 195, 255 };
    int fd = load(&one, 1, error);

    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

void cgroup_bpf_enable(struct cgroup_root *root, bool loud)
{
    drv_error_t error = { 0 };

    if (!cgroup_root_needs_dev_program(root))
        return;
    if (cgroup_bpf_probe(&error) < 0) {
        if (loud)
            log_error("cgroup v2: %s: ConstrainDevices is not applied",
                      error.text);
        else
            log_debug("cgroup v2: %s: ConstrainDevices is not applied",
                      error.text);
        return;
    }
    cgroup_root_set_dev_attach(root, cgroup_bpf_attach);
}
