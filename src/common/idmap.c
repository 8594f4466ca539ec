/* SPDX-License-Identifier: Apache-2.0
 *
 * idmap.c - pointers by 32-bit id in a page table (idmap.h)
 */
#include "common/idmap.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void idmap_put(struct idmap *m, uint32_t id, void *v)
{
    size_t p = id >> IDMAP_PAGE_SHIFT;
    void **slot;

    if (p >= m->npages) {
        size_t n = m->npages ? m->npages : 16;

        while (n <= p)
            n *= 2;
        m->pages = xrealloc(m->pages, n * sizeof(*m->pages));
        memset(m->pages + m->npages, 0,
               (n - m->npages) * sizeof(*m->pages));
        m->npages = n;
    }
    if (!m->pages[p])
        m->pages[p] = xzalloc(sizeof(**m->pages));
    slot = &m->pages[p]->v[id & (IDMAP_PAGE - 1)];
    if (!*slot)
        m->pages[p]->count++;
    *slot = v;
}

void idmap_del(struct idmap *m, uint32_t id)
{
    size_t p = id >> IDMAP_PAGE_SHIFT;
    void **slot;

    if (p >= m->npages || !m->pages[p])
        return;
    slot = &m->pages[p]->v[id & (IDMAP_PAGE - 1)];
    if (!*slot)
        return;
    *slot = NULL;
    if (--m->pages[p]->count == 0) {
        free(m->pages[p]);
        m->pages[p] = NULL;
    }
}

void idmap_free(struct idmap *m)
{
    for (size_t p = 0; p < m->npages; p++)
        free(m->pages[p]);
    free(m->pages);
    m->pages = NULL;
    m->npages = 0;
}
