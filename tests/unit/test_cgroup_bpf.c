/* SPDX-License-Identifier: Apache-2.0
 *
 * test_cgroup_bpf.c - the device policy (cgroup_dev.h) and its eBPF
 * program in the kernel (cgroup_bpf.h)
 *
 * The rules and the instructions are checked everywhere; as root, the
 * program also goes through the kernel's verifier and is attached to a
 * cgroup of a private cgroup2 mount (made here, so a cgroup v1 host works
 * too), where a child is refused the denied device and given the others.
 * Without root, a cgroup2 mount or CONFIG_CGROUP_BPF those parts skip.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "noded/cgroup_bpf.h"
#include "noded/cgroup_dev.h"

static void rules_come_from_device_files(void **state)
{
    (void)state;
    static const char *const files[] = { "/dev/null", "/etc/hostname",
                                         "/nonexistent/nvidia9", "/dev/zero",
                                         NULL };
    struct cgroup_dev_rule *r;
    char buf[CGROUP_DEV_V1_MAX];

    /* not devices: left out (and logged) */
    assert_int_equal(cgroup_dev_rules(files, &r), 2);
    assert_string_equal(cgroup_dev_v1_text(&r[0], buf), "c 1:3 rwm");
    assert_string_equal(cgroup_dev_v1_text(&r[1], buf), "c 1:5 rwm");
    free(r);
    assert_int_equal(cgroup_dev_rules(NULL, &r), 0);
    assert_null(r);
}

static void program_denies_each_rule_then_allows(void **state)
{
    (void)state;
    const struct cgroup_dev_rule rules[] = { { 'c', 195, 1 },
                                             { 'b', 8, 16 } };
    struct bpf_insn p[CGROUP_DEV_INSNS(2)];
    size_t n = cgroup_dev_program(rules, 2, p);

    assert_int_equal(n, CGROUP_DEV_INSNS(2));
    /* rule 1: type, major, minor compared; then return 0 */
    assert_int_equal(p[4].code, BPF_JMP | BPF_JNE | BPF_K);
    assert_int_equal(p[4].imm, BPF_DEVCG_DEV_CHAR);
    assert_int_equal(p[5].imm, 195);
    assert_int_equal(p[6].imm, 1);
    assert_int_equal(p[7].imm, 0);
    assert_int_equal(p[9].imm, BPF_DEVCG_DEV_BLOCK);
    /* the end: return 1 */
    assert_int_equal(p[n - 2].code, BPF_ALU64 | BPF_MOV | BPF_K);
    assert_int_equal(p[n - 2].imm, 1);
    assert_int_equal(p[n - 1].code, BPF_JMP | BPF_EXIT);
    assert_int_equal(cgroup_dev_program(NULL, 0, p), CGROUP_DEV_INSNS(0));
}

static void verifier_takes_the_program(void **state)
{
    (void)state;
    drv_error_t error = { 0 };

    if (geteuid() != 0)
        skip();
    if (cgroup_bpf_probe(&error) < 0)
        fail_msg("%s", error.text);
}

/* In a child: join 'dir', then open each of 'paths'; exit status: bit i
 * set when paths[i] was refused with EPERM (255: could not join). */
static int child_opens(const char *dir, const char *const *paths)
{
    pid_t pid = fork();
    int status;

    assert_true(pid >= 0);
    if (pid == 0) {
        char path[PATH_MAX + 16], me[24];
        int fd, bits = 0;
        snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
        snprintf(me, sizeof(me), "%d", (int)getpid());
        fd = open(path, O_WRONLY);
        if (fd < 0 || write(fd, me, strlen(me)) < 0)
            _exit(255);
        close(fd);
        for (int i = 0; paths[i]; i++) {
            int f = open(paths[i], O_RDONLY);
            if (f < 0 && errno == EPERM)
                bits |= 1 << i;
            if (f >= 0)
                close(f);
        }
        _exit(bits);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void attached_program_refuses_the_denied_device(void **state)
{
    (void)state;
    static const char *const denied[] = { "/dev/zero", NULL };
    static const char *const probe[] = { "/dev/null", "/dev/zero",
                                         "/dev/full", NULL };
    char mnt[] = "/tmp/test_cgroup_bpf.XXXXXX", job[256], step[512];
    struct cgroup_dev_rule *r;
    drv_error_t error = { 0 };
    size_t n;

    if (geteuid() != 0 || !mkdtemp(mnt))
        skip();
    if (mount("none", mnt, "cgroup2", 0, NULL) < 0) {
        rmdir(mnt);
        skip();
    }
    snprintf(job, sizeof(job), "%s/drover_test_%d", mnt, (int)getpid());
    snprintf(step, sizeof(step), "%s/step_0", job);
    assert_int_equal(mkdir(job, 0755), 0);
    assert_int_equal(mkdir(step, 0755), 0);
    n = cgroup_dev_rules(denied, &r);
    assert_int_equal(n, 1);
    assert_int_equal(cgroup_bpf_attached(job), 0);
    if (cgroup_bpf_attach(job, r, n, &error) < 0)
        fail_msg("%s", error.text);
    assert_int_equal(cgroup_bpf_attached(job), 1);
    /* a second step of the job: the job's program is there already */
    assert_int_equal(cgroup_bpf_attach(job, r, n, &error), 0);
    assert_int_equal(cgroup_bpf_attached(job), 1);
    /* the step below inherits it: only /dev/zero is refused */
    assert_int_equal(child_opens(step, probe), 1 << 1);
    free(r);
    assert_int_equal(rmdir(step), 0);
    assert_int_equal(rmdir(job), 0);
    assert_int_equal(umount(mnt), 0);
    assert_int_equal(rmdir(mnt), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rules_come_from_device_files),
        cmocka_unit_test(program_denies_each_rule_then_allows),
        cmocka_unit_test(verifier_takes_the_program),
        cmocka_unit_test(attached_program_refuses_the_denied_device),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
