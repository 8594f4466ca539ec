/* SPDX-License-Identifier: Apache-2.0
 *
 * srun_mpi.c - srun's --mpi types and PMIx fence hub (see srun_mpi.h)
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/lib/srun_mpi.h"
#include "common/base64.h"
#include "common/xalloc.h"

static const char *const mpi_types[] = {"none", "pmix", "pmix_v4", NULL};

int srun_mpi_check(const char *type, FILE *out, FILE *err)
{
    if (!strcmp(type, "list")) {
        fprintf(out, "MPI plugin types are...\n\tnone\n\tpmix\n"
                     "specific pmix plugin versions available: pmix_v4\n");
        return 1;
    }
    for (size_t i = 0; mpi_types[i]; i++)
        if (!strcmp(type, mpi_types[i]))
            return 0;
    /* Slurm 22.05's plugin loader, then srun, in this order. */
    fprintf(err,
            "srun: error: Couldn't find the specified plugin name for "
            "mpi/%s looking at all files\n"
            "srun: error: cannot find mpi plugin for mpi/%s\n"
            "srun: error: MPI: Cannot create context for mpi/%s\n"
            "srun: error: Invalid MPI type '%s', --mpi=list for acceptable "
            "types\n",
            type, type, type, type);
    return -1;
}

/* One fence in progress: the nodes heard from and their shares. */
struct fence {
    json_int_t id;
    int count;
    json_t *nodes;        /* name -> true */
    unsigned char *data;  /* the shares so far, concatenated */
    size_t len;
    struct fence *next;
};

struct srun_fence_hub {
    int nodes;
    struct fence *fences;
};

struct srun_fence_hub *srun_fence_hub_create(int nodes)
{
    struct srun_fence_hub *hub = xzalloc(sizeof(*hub));

    hub->nodes = nodes;
    return hub;
}

static void fence_free(struct fence *f)
{
    json_decref(f->nodes);
    free(f->data);
    free(f);
}

void srun_fence_hub_destroy(struct srun_fence_hub *hub)
{
    struct fence *f;

    if (!hub)
        return;
    while ((f = hub->fences)) {
        hub->fences = f->next;
        fence_free(f);
    }
    free(hub);
}

static struct fence *fence_get(struct srun_fence_hub *hub, json_int_t id)
{
    struct fence *f;

    for (f = hub->fences; f; f = f->next)
        if (f->id == id)
            return f;
    f = xzalloc(sizeof(*f));
    f->id = id;
    f->nodes = json_object();
    f->next = hub->fences;
    hub->fences = f;
    return f;
}

static void fence_unlink(struct srun_fence_hub *hub, struct fence *f)
{
    struct fence **pp = &hub->fences;

    while (*pp != f)
        pp = &(*pp)->next;
    *pp = f->next;
}

json_t *srun_fence_add(struct srun_fence_hub *hub, json_t *frame,
                       const char **error)
{
    json_t *id = json_object_get(frame, "fence");
    const char *node = json_string_value(json_object_get(frame, "node"));
    const char *b64 = json_string_value(json_object_get(frame, "data"));
    unsigned char *share;
    struct fence *f;
    size_t len = 0;
    json_t *answer;
    char *all;

    *error = NULL;
    if (!json_is_integer(id) || !node || !b64
        || !(share = base64_decode(b64, &len)))
        return *error = "malformed fence frame", NULL;
    f = fence_get(hub, json_integer_value(id));
    if (json_object_get(f->nodes, node)) {
        free(share);
        return *error = "second fence share from one node", NULL;
    }
    json_object_set_new(f->nodes, node, json_true());
    f->data = xrealloc(f->data, f->len + len + 1);
    memcpy(f->data + f->len, share, len);
    f->len += len;
    free(share);
    if (++f->count < hub->nodes)
        return NULL;
    all = base64_encode(f->data, f->len);
    answer = json_pack("{s:I s:s}", "fence", f->id, "data", all);
    free(all);
    fence_unlink(hub, f);
    fence_free(f);
    return answer;
}
