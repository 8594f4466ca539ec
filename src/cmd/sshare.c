/* SPDX-License-Identifier: Apache-2.0
 *
 * sshare.c - the fair-share tree of associations (Slurm's sshare)
 *
 * One share_info request to droverctld for the whole association tree;
 * the rows are chosen here as Slurm's controller chooses them (only the
 * calling user's user rows unless -a or -u, every account row unless -A)
 * and printed by sshare_print.c in Slurm 22.05's layout.  -M is refused as
 * by the other commands.
 */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <pwd.h>

#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/sshare_print.h"
#include "common/xalloc.h"

enum { OPT_HELP = CMD_OPT_LONG, OPT_USAGE };

/* Slurm's sshare prints one text for --help and --usage (below). */
static const struct cmd_opt opts[] = {
    {"accounts", 'A', required_argument, NULL},
    {"all", 'a', no_argument, NULL},
    {"helpformat", 'e', no_argument, NULL},
    {NULL, 'h', no_argument, NULL},
    {"long", 'l', no_argument, NULL},
    {"partition", 'm', no_argument, NULL},
    {"cluster", 'M', required_argument, NULL},
    {"clusters", 'M', required_argument, NULL},
    {"noheader", 'n', no_argument, NULL},
    {"format", 'o', required_argument, NULL},
    {"parsable", 'p', no_argument, NULL},
    {"parsable2", 'P', no_argument, NULL},
    {"users", 'u', required_argument, NULL},
    {"Users", 'U', no_argument, NULL},
    {"verbose", 'v', no_argument, NULL},
    {"version", 'V', no_argument, NULL},
    {"help", OPT_HELP, no_argument, NULL},
    {"usage", OPT_USAGE, no_argument, NULL},
    CMD_OPT_END,
};

/* A list of names without repeats (Slurm's char lists). */
struct list {
    char **v;
    size_t n;
};

static void list_add(struct list *l, const char *s, size_t len)
{
    for (size_t i = 0; i < l->n; i++)
        if (strlen(l->v[i]) == len && !strncasecmp(l->v[i], s, len))
            return;
    l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
    l->v[l->n] = xzalloc(len + 1);
    memcpy(l->v[l->n++], s, len);
}

static void list_free(struct list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    *l = (struct list){0};
}

/* Add each name of 'text'; a number is a uid, named as Slurm does (an
 * unknown one ends sshare). */
static void add_names(struct list *l, const char *text, bool uids)
{
    while (*text) {
        size_t len = strcspn(text, ",");

        if (len && uids && isdigit((unsigned char)*text)) {
            unsigned long id = strtoul(text, NULL, 10);
            struct passwd *pw = getpwuid((uid_t)id);

            if (!pw) {
                fprintf(stderr, "Invalid user id: %lu\n", id);
                exit(1);
            }
            list_add(l, pw->pw_name, strlen(pw->pw_name));
        } else if (len) {
            list_add(l, text, len);
        }
        text += len;
        if (*text == ',')
            text++;
    }
}

struct args {
    const char *prog;
    struct sshare_out out;
    bool all_users;
    int verbose;
    struct list users, accounts;
    char *format;
};

static void parse_args(int argc, char **argv, struct args *a)
{
    char *f;
    int c;

    while ((c = cmd_getopt(argc, argv, opts)) != -1) {
        switch (c) {
        case 'a': a->all_users = true; break;
        case 'A': add_names(&a->accounts, optarg, false); break;
        case 'e':
            sshare_print_helpformat(stdout);
            exit(0);
        case 'h':
        case 'n': a->out.noheader = true; break;
        case 'l': a->out.long_list = true; break;
        case 'm': a->out.partitions = true; break;
        case 'o':
            /* Several -o add up, as in Slurm. */
            f = a->format ? xasprintf("%s,%s", a->format, optarg)
                          : xstrdup(optarg);
            free(a->format);
            a->format = f;
            break;
        case 'p': a->out.layout = PF_PARSABLE; break;
        case 'P': a->out.layout = PF_PARSABLE2; break;
        case 'u':
            if (!strcmp(optarg, "-1")) {
                a->all_users = true;
                break;
            }
            a->all_users = false;
            add_names(&a->users, optarg, true);
            break;
        case 'U': a->out.users_only = true; break;
        case 'v': a->verbose++; break;
        case 'M': /* one cluster: it must be this one */
            if (!cmd_clusters_check(a->prog, optarg))
                exit(1);
            break;
        case 'V':
            cmd_print_version();
            exit(0);
        case OPT_HELP:
        case OPT_USAGE:
            fputs(sshare_usage_text, stdout);
            exit(0);
        case '?':
            fprintf(stderr, "Try \"sshare --help\" for more information\n");
            exit(1);
        default:
            fprintf(stderr, "getopt error, returned %c\n", c);
            exit(1);
        }
    }
}

/* Who is shown: everyone with -a, the -u list, else the caller. */
static void choose_users(struct args *a)
{
    if (a->all_users) {
        list_free(&a->users);
        if (a->verbose)
            fprintf(stderr, "Users requested:\n\t: all\n");
    } else if (a->users.n) {
        if (a->verbose) {
            fprintf(stderr, "Users requested:\n");
            for (size_t i = 0; i < a->users.n; i++)
                fprintf(stderr, "\t: %s\n", a->users.v[i]);
        }
    } else {
        struct passwd *pw = getpwuid(getuid());

        if (pw) {
            list_add(&a->users, pw->pw_name, strlen(pw->pw_name));
            if (a->verbose)
                fprintf(stderr, "Users requested:\n\t: %s\n", pw->pw_name);
        }
    }
    if (a->verbose && a->accounts.n) {
        fprintf(stderr, "Accounts requested:\n");
        for (size_t i = 0; i < a->accounts.n; i++)
            fprintf(stderr, "\t: %s\n", a->accounts.v[i]);
    } else if (a->verbose) {
        fprintf(stderr, "Accounts requested:\n\t: all\n");
    }
}

int main(int argc, char **argv)
{
    struct args a = {.prog = cmd_prog_name(argv[0])};
    drv_error_t error = {{0}};
    struct fmt_buf out = {0};
    json_t *resp = NULL;
    int rc = 0;

    /* Words after the options are ignored, as by Slurm's sshare. */
    parse_args(argc, argv, &a);
    choose_users(&a);
    a.out.format = a.format;
    a.out.cluster = cmd_conf(a.prog)->cluster_name;
    a.out.users = (const char *const *)a.users.v;
    a.out.nusers = a.users.n;
    a.out.accounts = (const char *const *)a.accounts.v;
    a.out.naccounts = a.accounts.n;
    if (cmd_rpc(a.prog, "share_info", json_object(), &resp, &error) < 0) {
        fprintf(stderr, "Couldn't get shares from controller: %s\n",
                error.text);
        rc = 1;
    } else if (sshare_print(&out, resp, &a.out, &error) < 0) {
        cmd_error(a.prog, "%s", error.text);
        rc = 1;
    } else {
        fputs(fmt_buf_str(&out), stdout);
    }
    free(out.s);
    json_decref(resp);
    list_free(&a.users);
    list_free(&a.accounts);
    free(a.format);
    return rc;
}
