/* SPDX-License-Identifier: Apache-2.0
 *
 * sprio.c - the factors of pending jobs' priorities (Slurm's sprio)
 *
 * One priority_info request to droverctld (with the -j, -u and -p
 * filters), printed by sprio_print.c in Slurm 22.05's layout.  Under
 * priority/basic sprio says what Slurm says and exits 1.  -M is refused
 * as by the other commands; --local, --sibling and --federation change
 * nothing on one cluster.
 */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cmd/lib/names.h"
#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/sprio_print.h"
#include "common/xalloc.h"

/* A comma-separated list, split into a new array. */
struct list {
    char **v;
    size_t n;
};

static void list_add(struct list *l, const char *s, size_t len)
{
    l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
    l->v[l->n] = xzalloc(len + 1);
    memcpy(l->v[l->n++], s, len);
}

static void list_split(struct list *l, const char *text)
{
    while (*text) {
        size_t len = strcspn(text, ",");

        if (len)
            list_add(l, text, len);
        text += len;
        if (*text == ',')
            text++;
    }
}

static void list_free(struct list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

struct args {
    const char *prog;
    struct sprio_out out;
    int verbose;
    bool job_flag, local;
    const char *jobs_text, *users_text, *parts_text, *format;
    struct list users, parts;
    uint32_t *job_ids;
    size_t njobs;
};

/* Job ids as Slurm's unfmt_job_id_string() reads them: "70369",
 * "70369_2" (the array's job), "70369+1" (a pack member). */
static void parse_jobs(struct args *a, const char *text)
{
    struct list l = {0};

    list_split(&l, text);
    free(a->job_ids);
    a->job_ids = xzalloc((l.n + 1) * sizeof(*a->job_ids));
    a->njobs = 0;
    for (size_t i = 0; i < l.n; i++) {
        char *end;
        unsigned long id = strtoul(l.v[i], &end, 10);

        if (!isdigit((unsigned char)l.v[i][0]) || id == 0
            || (*end && *end != '_' && *end != '+' && *end != '.')) {
            cmd_error(a->prog, "Invalid job id: %s", l.v[i]);
            exit(1);
        }
        if (*end == '+')
            id += strtoul(end + 1, NULL, 10);
        a->job_ids[a->njobs++] = (uint32_t)id;
    }
    list_free(&l);
    a->jobs_text = text;
}

/* Slurm reports a user it cannot resolve and leaves it out. */
static void parse_users(struct args *a, const char *text)
{
    struct list l = {0};

    list_free(&a->users);
    a->users = (struct list){0};
    list_split(&l, text);
    for (size_t i = 0; i < l.n; i++) {
        uid_t uid;
        const char *name = l.v[i];

        if (names_user_uid(name, &uid) < 0) {
            cmd_error(a->prog, "Invalid user: %s\n", name);
            continue;
        }
        if (isdigit((unsigned char)name[0]))
            name = names_user(uid);
        list_add(&a->users, name, strlen(name));
    }
    list_free(&l);
    a->users_text = text;
}

static void print_options(const struct args *a)
{
#define OR_NULL(s) ((s) ? (s) : "(null)")
    printf("-----------------------------\n");
    printf("format     = %s\n", OR_NULL(a->format));
    printf("job_flag   = %d\n", a->job_flag);
    printf("jobs       = %s\n", OR_NULL(a->jobs_text));
    printf("partition  = %s\n", OR_NULL(a->parts_text));
    printf("users      = %s\n", OR_NULL(a->users_text));
    printf("verbose    = %d\n", a->verbose);
    if (a->verbose > 1) {
        for (size_t i = 0; i < a->njobs; i++)
            printf("job_list[%zu] = %u\n", i, a->job_ids[i]);
        for (size_t i = 0; i < a->users.n; i++) {
            uid_t uid = 0;

            names_user_uid(a->users.v[i], &uid);
            printf("user_list[%zu] = %u\n", i, (unsigned)uid);
        }
    }
    printf("-----------------------------\n\n\n");
#undef OR_NULL
}

static void parse_args(int argc, char **argv, struct args *a)
{
    bool sibling = getenv("SPRIO_SIBLING") != NULL;
    int c;

    a->local = getenv("SPRIO_LOCAL") != NULL;
    while ((c = cmd_getopt(argc, argv, sprio_options)) != -1) {
        switch (c) {
        case 'h': a->out.noheader = true; break;
        case 'j':
            a->job_flag = true;
            if (optarg)
                parse_jobs(a, optarg);
            break;
        case 'l': a->out.long_list = true; break;
        case 'n': a->out.normalized = true; break;
        case 'o': a->format = optarg; break;
        case 'p':
            list_free(&a->parts);
            a->parts = (struct list){0};
            list_split(&a->parts, optarg);
            a->parts_text = optarg;
            break;
        case 'u': parse_users(a, optarg); break;
        case 'v': a->verbose++; break;
        case 'w': a->out.weights = true; break;
        case SPRIO_OPT_LOCAL: a->local = true; break;
        case SPRIO_OPT_SIBLING: sibling = true; break;
        case SPRIO_OPT_FEDERATION: break; /* one cluster: nothing to add */
        case 'M': /* one cluster: it must be this one */
            if (!cmd_clusters_check(a->prog, optarg))
                exit(1);
            break;
        case 'V':
            cmd_print_version();
            exit(0);
        case SPRIO_OPT_HELP:
            sprio_print_help(stdout);
            exit(0);
        case SPRIO_OPT_USAGE:
            sprio_print_usage(stdout);
            exit(0);
        default:
            fprintf(stderr, "Try \"sprio --help\" for more information\n");
            exit(1);
        }
    }
    /* SPRIO_FORMAT stands in for -o unless -o or -l was given. */
    if (!a->format && !a->out.long_list)
        a->format = getenv("SPRIO_FORMAT");
    if (optind < argc && a->job_flag && !a->jobs_text)
        parse_jobs(a, argv[optind++]);
    if (optind < argc) {
        cmd_error(a->prog, "Unrecognized option: %s", argv[optind]);
        sprio_print_usage(stdout);
        exit(1);
    }
    a->out.sibling = sibling && !a->local;
    a->out.users_given = a->users_text != NULL;
    a->out.format = a->format;
    a->out.jobs_given = a->jobs_text != NULL;
}

static json_t *request(const struct args *a)
{
    json_t *body = json_object();

    if (a->njobs) {
        json_t *ids = json_array();

        for (size_t i = 0; i < a->njobs; i++)
            json_array_append_new(ids, json_integer(a->job_ids[i]));
        json_object_set_new(body, "jobs", ids);
    }
    if (a->users.n) {
        json_t *names = json_array();

        for (size_t i = 0; i < a->users.n; i++)
            json_array_append_new(names, json_string(a->users.v[i]));
        json_object_set_new(body, "users", names);
    }
    if (a->parts.n) {
        json_t *names = json_array();

        for (size_t i = 0; i < a->parts.n; i++)
            json_array_append_new(names, json_string(a->parts.v[i]));
        json_object_set_new(body, "partitions", names);
    }
    return body;
}

static void args_free(struct args *a)
{
    list_free(&a->users);
    list_free(&a->parts);
    free(a->job_ids);
}

int main(int argc, char **argv)
{
    struct args a = {.prog = cmd_prog_name(argv[0])};
    drv_error_t error = {{0}};
    struct fmt_buf out = {0};
    json_t *resp = NULL;
    char bad[64];
    size_t nbad;
    int rc = 1;

    parse_args(argc, argv, &a);
    if (a.verbose)
        print_options(&a);
    a.out.cluster = cmd_conf(a.prog)->cluster_name;
    if (cmd_rpc(a.prog, "priority_info", request(&a), &resp, &error) < 0) {
        fprintf(stderr, "Couldn't get priority factors from controller: "
                        "%s\n", error.text);
        goto out;
    }
    if (sprio_check_type(resp, &out) < 0) {
        fputs(fmt_buf_str(&out), stderr);
        goto out;
    }
    nbad = sprio_bad_letters(a.out.format, bad, sizeof(bad));
    for (size_t i = 0; i < nbad && i + 1 < sizeof(bad); i++)
        cmd_error(a.prog, "Invalid job format specification: %c", bad[i]);
    sprio_print(&out, resp, &a.out);
    fputs(fmt_buf_str(&out), stdout);
    rc = 0;
out:
    free(out.s);
    json_decref(resp);
    args_free(&a);
    return rc;
}
