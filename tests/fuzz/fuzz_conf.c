/* SPDX-License-Identifier: Apache-2.0
 *
 * fuzz_conf.c - configuration files: slurm.conf with gres.conf, and
 * cgroup.conf, slurmdbd.conf, oci.conf, job_container.conf
 *
 * The first byte picks the parser; the rest is the file.  For slurm.conf a
 * line "%%" splits it from a gres.conf text.  A parse that succeeds is
 * freed, one that fails must leave nothing behind (LeakSanitizer).
 */
#include "fuzz.h"

#include "common/error.h"
#include "common/log.h"
#include "conf/conf.h"
#include "conf/conf_dbd.h"
#include "conf/conf_private.h"

/* Not a directory that exists: nothing beside it is read. */
#define DIR "/nonexistent/drover-fuzz"
#define PATH DIR "/slurm.conf"

static void slurm_conf(char *text)
{
    drv_error_t error = {{0}};
    char *gres = strstr(text, "\n%%\n");
    struct slurm_conf *c;

    if (gres) {
        *gres = '\0';
        gres += 4;
    }
    if ((c = conf_parse(PATH, text, gres ? gres : "", &error)))
        conf_destroy(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    drv_error_t error = {{0}};
    struct conf_cgroup cg = {0};
    struct conf_oci oci = {0};
    struct conf_job_container jc = {0};
    struct dbd_conf *dbd;
    char *text;

    if (size < 1)
        return 0;
    log_init("fuzz", LOG_LEVEL_QUIET); /* warnings are not findings */
    text = fuzz_string(data + 1, size - 1);
    switch (data[0] % 5) {
    case 0:
        slurm_conf(text);
        break;
    case 1:
        if (conf_cgroup_parse(&cg, "/nonexistent/cgroup.conf", text,
                              &error) == 0)
            conf_cgroup_clear(&cg);
        break;
    case 2:
        if ((dbd = conf_dbd_parse("/nonexistent/slurmdbd.conf", text,
                                  &error)))
            conf_dbd_destroy(dbd);
        break;
    case 3:
        (void)conf__parse_oci(&oci, strdup(DIR "/oci.conf"), text, DIR,
                              &error);
        conf__oci_clear(&oci);
        break;
    default:
        jc.path = strdup(DIR "/job_container.conf");
        (void)conf__parse_job_container(&jc, text, DIR, &error);
        conf__job_container_clear(&jc);
        break;
    }
    free(text);
    return 0;
}
