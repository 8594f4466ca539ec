/* SPDX-License-Identifier: Apache-2.0
 *
 * fairshare.h - the fair-share factor over the association tree: Slurm's
 * Fair Tree (the default) and its classic algorithm (PriorityFlags=
 * NO_FAIR_TREE)
 *
 * Pure code.  The caller lists the associations (the tree sacctmgr keeps:
 * accounts with their parent, users under their account, each with its raw
 * shares, Slurm's fairshare=) and each user association's raw usage (the
 * decayed CPU-seconds it ran, priority.h), and gets back, per association,
 * the figures sshare prints and the factor the priority uses.
 *
 * Fair Tree (slurm.schedmd.com/fair_tree.html): at each level of the tree
 * an association's LevelFS is S / U, S its shares over its siblings' and U
 * its usage over its siblings' (infinite with no usage).  Siblings are
 * ranked by LevelFS, highest first, depth first: every user below an
 * account ranks above every user below a sibling with a lower LevelFS.
 * Users are numbered from the user count down (equal LevelFS, equal rank)
 * and a user's factor is its rank over the user count.  Accounts whose
 * LevelFS ties have their children ranked together.
 *
 * Classic (slurm.schedmd.com/classic_fair_share.html): S is the product of
 * the shares fractions up the tree, the effective usage UE = UA + (UE of
 * the parent - UA) * (shares / siblings' shares) with UA the usage over the
 * root's, and the factor is 2^(-UE / S).
 */
#ifndef DROVER_SCHED_FAIRSHARE_H
#define DROVER_SCHED_FAIRSHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One association as the caller lists it.  Strings are borrowed for the
 * call only (fs_tree_build() copies them). */
struct fs_assoc {
    const char *account;
    const char *user;           /* "" for the account's own association */
    const char *parent_account; /* accounts: their parent ("" at the root);
                                 * users: ignored (their account is) */
    uint32_t shares;            /* raw shares (fairshare=), Slurm default 1 */
    double usage;               /* users: raw usage (CPU-seconds, decayed);
                                 * accounts: ignored (their subtree's sum) */
};

enum fs_algo {
    FS_FAIR_TREE, /* PriorityFlags without NO_FAIR_TREE */
    FS_CLASSIC,   /* NO_FAIR_TREE */
};

/* One row of the tree, as sshare prints it. */
struct fs_row {
    const char *account;
    const char *user;         /* "" for an account row */
    unsigned depth;           /* root 0, its children 1, ... */
    int64_t raw_shares;       /* -1 for the root (no shares) */
    double norm_shares;       /* Fair Tree: shares over the siblings';
                               * classic: the product up the tree */
    double raw_usage;         /* users: as given; accounts: the subtree's */
    double norm_usage;        /* raw usage over the root's */
    double effective_usage;   /* Fair Tree: over the siblings'; classic: UE */
    double fairshare;         /* the factor, 0..1; -1 where none (accounts
                               * under Fair Tree, the root) */
    double level_fs;          /* Fair Tree: S / U (INFINITY with no usage);
                               * -1 where none (the root, classic) */
};

typedef struct fs_tree fs_tree_t;

/* Build the tree of 'n' associations and compute every row.  The root is
 * the account "root" (made when not listed); an account whose parent is
 * not listed, and users of an account not listed, hang from the root.
 * A user listed twice under one account (per-partition associations)
 * counts once, with the usages summed.  Rows come in sshare's order: an
 * account, then its users by name, then its sub-accounts by name, depth
 * first.  Returns the tree (free with fs_tree_destroy()); never NULL
 * (allocation failure aborts, as xalloc does).
 */
fs_tree_t *fs_tree_build(const struct fs_assoc *in, size_t n,
                         enum fs_algo algo);

/* NULL is a no-op. */
void fs_tree_destroy(fs_tree_t *t);

/* The rows in sshare's order: *rows points into the tree (borrowed until
 * fs_tree_destroy()), one array, so an account's subtree is the rows after
 * it that are deeper than it, and fs_tree_find()'s answers point into it.
 * Returns their count. */
size_t fs_tree_rows(const fs_tree_t *t, const struct fs_row **rows);

/* The fair-share factor (0..1) of user 'user' under 'account', or 0 when
 * the tree has no such association (as Slurm gives a job without one). */
double fs_tree_factor(const fs_tree_t *t, const char *account,
                      const char *user);

/* The row of (account, user) ("" user: the account's), or NULL. */
const struct fs_row *fs_tree_find(const fs_tree_t *t, const char *account,
                                  const char *user);

/* The factor a job of row 'r''s association gets: its fairshare for a
 * user row, else (an account, NULL) 0, as fs_tree_factor(). */
double fs_row_factor(const struct fs_row *r);

/* Give the user association at row 'row' (an index into fs_tree_rows()'s
 * array) raw usage 'usage'; the rows keep their figures until
 * fs_tree_update().  Returns 0, or -1 when 'row' is no user's (nothing
 * changes).  For a caller whose associations stay and whose usage moves
 * (drover-sim's calculations), where building anew costs most. */
int fs_tree_set_usage(fs_tree_t *t, size_t row, double usage);

/* Compute every row again from the usages set: the figures
 * fs_tree_build() gives for the same associations and usages (the rows'
 * order and the strings are unchanged). */
void fs_tree_update(fs_tree_t *t);

#endif /* !DROVER_SCHED_FAIRSHARE_H */
