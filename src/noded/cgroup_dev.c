/* SPDX-License-Identifier: Apache-2.0
 *
 * cgroup_dev.c - the device policy of job cgroups (cgroup_dev.h)
 *
 * The eBPF program reads struct bpf_cgroup_dev_ctx (linux/bpf.h):
 * access_type (the access in the high 16 bits, the device type,
 * BPF_DEVCG_DEV_CHAR or _BLOCK, in the low ones), major and minor.  Per
 * rule, three compares jump past "return 0" when the device differs; the
 * last instructions return 1.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/cgroup_dev.h"

size_t cgroup_dev_rules(const char *const *files,
                        struct cgroup_dev_rule **out)
{
    size_t n = 0, cap = 0;

    *out = NULL;
    for (size_t i = 0; files && files[i]; i++) {
        struct stat st;
        errno = 0;
        if (stat(files[i], &st) < 0
            || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
            log_error("cgroup: %s is not a device file (%s): not denied",
                      files[i], errno ? strerror(errno) : "wrong type");
            continue;
        }
        if (n == cap)
            *out = xrealloc(*out, (cap = cap ? cap * 2 : 4) * sizeof(**out));
        (*out)[n++] = (struct cgroup_dev_rule){
            .type = S_ISCHR(st.st_mode) ? 'c' : 'b',
            .major = major(st.st_rdev),
            .minor = minor(st.st_rdev),
        };
    }
    return n;
}

char *cgroup_dev_v1_text(const struct cgroup_dev_rule *r, char *buf)
{
    snprintf(buf, CGROUP_DEV_V1_MAX, "%c %u:%u rwm", r->type, r->major,
             r->minor);
    return buf;
}

static struct bpf_insn insn(unsigned char code, unsigned char dst,
                            unsigned char src, short off, int imm)
{
    return (struct bpf_insn){ .code = code, .dst_reg = dst, .src_reg = src,
                              .off = off, .imm = imm };
}

/* r0 = 'v'; exit */
static size_t ret(struct bpf_insn *p, int v)
{
    p[0] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, v);
    p[1] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
    return 2;
}

size_t cgroup_dev_program(const struct cgroup_dev_rule *rules, size_t n,
                          struct bpf_insn *insns)
{
    struct bpf_insn *p = insns;

    /* r2 = type, r3 = major, r4 = minor */
    *p++ = insn(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_2, BPF_REG_1,
                offsetof(struct bpf_cgroup_dev_ctx, access_type), 0);
    *p++ = insn(BPF_ALU | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff);
    *p++ = insn(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_3, BPF_REG_1,
                offsetof(struct bpf_cgroup_dev_ctx, major), 0);
    *p++ = insn(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_4, BPF_REG_1,
                offsetof(struct bpf_cgroup_dev_ctx, minor), 0);
    for (size_t i = 0; i < n; i++) {
        int type = rules[i].type == 'b' ? BPF_DEVCG_DEV_BLOCK
                                        : BPF_DEVCG_DEV_CHAR;
        /* each jump skips what is left of this rule */
        *p++ = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, 4, type);
        *p++ = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_3, 0, 3,
                    (int)rules[i].major);
        *p++ = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 2,
                    (int)rules[i].minor);
        p += ret(p, 0);
    }
    p += ret(p, 1);
    return (size_t)(p - insns);
}
