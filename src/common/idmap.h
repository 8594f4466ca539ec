/* SPDX-License-Identifier: Apache-2.0
 *
 * idmap.h - pointers by 32-bit id, for ids handed out in sequence (job
 * ids): a page table of PAGE entries, a page made when its first id is put
 * and freed when its last one goes
 *
 * A lookup is two loads, no hash: the controller's scheduling passes look
 * up every live job by id (ctld_live_from()), and a uthash lookup per job
 * was 30% of its CPU in a launch storm of 40,000 jobs (bench/README.md).
 * Memory: 8 bytes per id of every page in use (8 KiB per 1,024 ids), and
 * 8 bytes per page of the id range up to the highest id put.
 */
#ifndef DROVER_COMMON_IDMAP_H
#define DROVER_COMMON_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#define IDMAP_PAGE_SHIFT 10
#define IDMAP_PAGE (1u << IDMAP_PAGE_SHIFT)

struct idmap_page {
    uint32_t count; /* entries not NULL */
    void *v[IDMAP_PAGE];
};

/* Zero-initialised: empty. */
struct idmap {
    struct idmap_page **pages;
    size_t npages;
};

/* The pointer put for 'id', or NULL. */
static inline void *idmap_get(const struct idmap *m, uint32_t id)
{
    size_t p = id >> IDMAP_PAGE_SHIFT;

    return p < m->npages && m->pages[p]
               ? m->pages[p]->v[id & (IDMAP_PAGE - 1)]
               : NULL;
}

/* Put 'v' (not NULL) for 'id', replacing what was there.  Aborts when
 * memory runs out (xalloc.h). */
void idmap_put(struct idmap *m, uint32_t id, void *v);

/* Forget 'id' (nothing put: no-op). */
void idmap_del(struct idmap *m, uint32_t id);

/* Free the pages (not what they point to); 'm' is empty again. */
void idmap_free(struct idmap *m);

#endif /* !DROVER_COMMON_IDMAP_H */
