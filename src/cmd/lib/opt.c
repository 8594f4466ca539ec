/* SPDX-License-Identifier: Apache-2.0
 *
 * opt.c - one options table per command: parsing, --help, messages
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/lib/opt.h"
#include "common/xalloc.h"

static const struct cmd_opt *built_for;
static char *shortopts;
static struct option *longopts;

static int opt_is_end(const struct cmd_opt *o)
{
    return !o->name && !o->val && !o->help;
}

static void build(const struct cmd_opt *opts)
{
    size_t n = 0, nl = 0, ns = 0;

    for (const struct cmd_opt *o = opts; !opt_is_end(o); o++)
        n++;
    free(shortopts);
    free(longopts);
    shortopts = xzalloc(3 * n + 2);
    longopts = xzalloc((n + 1) * sizeof(*longopts));
    for (const struct cmd_opt *o = opts; !opt_is_end(o); o++) {
        if (o->val > 0 && o->val < CMD_OPT_LONG && !strchr(shortopts, o->val)) {
            shortopts[ns++] = (char)o->val;
            if (o->has_arg == required_argument)
                shortopts[ns++] = ':';
            else if (o->has_arg == optional_argument) {
                shortopts[ns++] = ':';
                shortopts[ns++] = ':';
            }
        }
        if (o->name)
            longopts[nl++] = (struct option){o->name, o->has_arg, NULL, o->val};
    }
    built_for = opts;
}

int cmd_getopt(int argc, char **argv, const struct cmd_opt *opts)
{
    char *argv0 = argv[0];
    int c;

    if (built_for != opts)
        build(opts);
    /* getopt prints argv[0]; Slurm's messages show the bare name. */
    argv[0] = (char *)cmd_prog_name(argv0);
    c = getopt_long(argc, argv, shortopts, longopts, NULL);
    argv[0] = argv0;
    return c;
}

void cmd_print_help(FILE *out, const char *head, const struct cmd_opt *opts,
                    const char *tail)
{
    if (head)
        fputs(head, out);
    for (const struct cmd_opt *o = opts; !opt_is_end(o); o++) {
        if (o->help)
            fputs(o->help, out);
    }
    if (tail)
        fputs(tail, out);
}

void cmd_print_version(void)
{
    printf("slurm %s\ndrover %s\n", DROVER_SLURM_VERSION, DROVER_VERSION);
}

void cmd_error(const char *prog, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: error: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

const char *cmd_prog_name(const char *argv0)
{
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;

    return slash ? slash + 1 : (argv0 ? argv0 : "");
}

void cmd_print_date(time_t now)
{
    char buf[64];
    struct tm tm;

    localtime_r(&now, &tm);
    strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y", &tm);
    printf("%s\n", buf);
}
