/* SPDX-License-Identifier: Apache-2.0
 *
 * gpu_nvml.c - the node's GPUs through NVML, loaded with dlopen
 *
 * The types and prototypes below are NVML's ABI as nvml.h declares it
 * (written here from the documented signatures: no NVML header at build
 * time).  Only the versioned symbols are looked up (the MIG functions
 * have no versions).
 */
#include <ctype.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/gpu_nvml.h"

typedef int nvmlReturn_t; /* NVML_SUCCESS is 0 */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef int nvmlEnableState_t; /* NVML_FEATURE_ENABLED is 1 */
#define NVML_DEVICE_MIG_ENABLE 1

/* nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 and
 * nvmlDeviceGetNvLinkRemotePciInfo_v2 fill it. */
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

#define NVML_NVLINK_MAX_LINKS 18
#define CPUSET_LONGS 64 /* 4096 CPUs */
#define MAX_MIGS 64      /* MIG instances of one GPU looked at (7 today) */

struct nvml {
    void *dl;
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*shutdown)(void);
    const char *(*error_string)(nvmlReturn_t);
    nvmlReturn_t (*count)(unsigned int *);
    nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*uuid)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*minor)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*affinity)(nvmlDevice_t, unsigned int, unsigned long *);
    nvmlReturn_t (*pci)(nvmlDevice_t, nvmlPciInfo_t *);
    /* optional: no NVLink without them */
    nvmlReturn_t (*link_state)(nvmlDevice_t, unsigned int,
                               nvmlEnableState_t *);
    nvmlReturn_t (*link_pci)(nvmlDevice_t, unsigned int, nvmlPciInfo_t *);
    /* optional: no MIG without them */
    nvmlReturn_t (*mig_mode)(nvmlDevice_t, unsigned int *current,
                             unsigned int *pending);
    nvmlReturn_t (*mig_max)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*mig_handle)(nvmlDevice_t, unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*gi_id)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*ci_id)(nvmlDevice_t, unsigned int *);
};

void gpu_nvml_type_name(const char *name, char *out, size_t len)
{
    size_t k = 0;

    if (!len)
        return;
    for (; name[k] && k + 1 < len; k++)
        out[k] = name[k] == ' ' ? '_' : (char)tolower((unsigned char)name[k]);
    out[k] = '\0';
}

/* Look up every required symbol; -1 with 'why' naming the missing one. */
static int nvml_bind(struct nvml *n, char *why, size_t whylen)
{
    static const struct { const char *sym; size_t off; } req[] = {
#define S(f, s) { s, offsetof(struct nvml, f) }
        S(init, "nvmlInit_v2"), S(shutdown, "nvmlShutdown"),
        S(error_string, "nvmlErrorString"),
        S(count, "nvmlDeviceGetCount_v2"),
        S(handle, "nvmlDeviceGetHandleByIndex_v2"),
        S(name, "nvmlDeviceGetName"), S(uuid, "nvmlDeviceGetUUID"),
        S(minor, "nvmlDeviceGetMinorNumber"),
        S(affinity, "nvmlDeviceGetCpuAffinity"),
        S(pci, "nvmlDeviceGetPciInfo_v3"),
#undef S
    };

    for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
        void *f = dlsym(n->dl, req[i].sym);
        if (!f) {
            snprintf(why, whylen, "%s: symbol not found", req[i].sym);
            return -1;
        }
        memcpy((char *)n + req[i].off, &f, sizeof(f));
    }
    *(void **)&n->link_state = dlsym(n->dl, "nvmlDeviceGetNvLinkState");
    *(void **)&n->link_pci = dlsym(n->dl,
                                   "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    *(void **)&n->mig_mode = dlsym(n->dl, "nvmlDeviceGetMigMode");
    *(void **)&n->mig_max = dlsym(n->dl, "nvmlDeviceGetMaxMigDeviceCount");
    *(void **)&n->mig_handle = dlsym(n->dl,
                                     "nvmlDeviceGetMigDeviceHandleByIndex");
    *(void **)&n->gi_id = dlsym(n->dl, "nvmlDeviceGetGpuInstanceId");
    *(void **)&n->ci_id = dlsym(n->dl, "nvmlDeviceGetComputeInstanceId");
    return 0;
}

/* "0-3,8" from a CPU bit mask. */
static void cpu_list(const unsigned long *mask, char *out, size_t len)
{
    const unsigned bits = CPUSET_LONGS * 8 * sizeof(long);
    size_t k = 0;

    out[0] = '\0';
    for (unsigned c = 0; c < bits; c++) {
        unsigned e = c;
#define SET(i) (mask[(i) / (8 * sizeof(long))] >> ((i) % (8 * sizeof(long))) & 1)
        if (!SET(c))
            continue;
        while (e + 1 < bits && SET(e + 1))
            e++;
#undef SET
        int n = e > c ? snprintf(out + k, len - k, "%s%u-%u", k ? "," : "", c, e)
                      : snprintf(out + k, len - k, "%s%u", k ? "," : "", c);
        if (n < 0 || (size_t)n >= len - k) {
            out[k] = '\0';
            return;
        }
        k += (size_t)n;
        c = e;
    }
}

/* One device's fields but Links=.  -1 with 'why' set on an NVML error. */
static int nvml_device(struct nvml *n, unsigned i, struct gpu_nvml_dev *d,
                       char *why, size_t whylen)
{
    unsigned long mask[CPUSET_LONGS] = { 0 };
    nvmlPciInfo_t pci = { 0 };
    nvmlDevice_t h;
    unsigned minor = 0;
    nvmlReturn_t rc;
    const char *what;

    d->index = i;
    d->mig = d->mig_count = -1;
    if ((rc = n->handle(i, &h)) && (what = "nvmlDeviceGetHandleByIndex_v2"))
        goto fail;
    if ((rc = n->name(h, d->name, sizeof(d->name))) && (what = "nvmlDeviceGetName"))
        goto fail;
    if ((rc = n->uuid(h, d->uuid, sizeof(d->uuid))) && (what = "nvmlDeviceGetUUID"))
        goto fail;
    if ((rc = n->minor(h, &minor)) && (what = "nvmlDeviceGetMinorNumber"))
        goto fail;
    if ((rc = n->pci(h, &pci)) && (what = "nvmlDeviceGetPciInfo_v3"))
        goto fail;
    gpu_nvml_type_name(d->name, d->type, sizeof(d->type));
    snprintf(d->file, sizeof(d->file), "/dev/nvidia%u", minor);
    snprintf(d->bus_id, sizeof(d->bus_id), "%s", pci.busId);
    if (n->affinity(h, CPUSET_LONGS, mask) == 0)
        cpu_list(mask, d->cores, sizeof(d->cores));
    return 0;
fail:
    snprintf(why, whylen, "GPU %u: %s: %s", i, what, n->error_string(rc));
    return -1;
}

/* Links= of device i: NVLinks to each GPU of 'devs' (by bus id). */
static void nvml_links(struct nvml *n, struct gpu_nvml_dev *devs,
                       unsigned count, unsigned i)
{
    unsigned to[64] = { 0 };
    bool nvlink = false;
    nvmlDevice_t h;
    size_t k = 0;

    if (!n->link_state || !n->link_pci || count > 64 || n->handle(i, &h))
        return;
    for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
        nvmlEnableState_t on = 0;
        nvmlPciInfo_t pci = { 0 };
        if (n->link_state(h, l, &on))
            break; /* no NVLink, or no more links */
        nvlink = true;
        if (on != 1 || n->link_pci(h, l, &pci))
            continue;
        for (unsigned j = 0; j < count; j++)
            if (j != i && !strcasecmp(pci.busId, devs[j].bus_id))
                to[j]++;
    }
    if (!nvlink)
        return;
    for (unsigned j = 0; j < count; j++) {
        int w = snprintf(devs[i].links + k, sizeof(devs[i].links) - k,
                         "%s%d", j ? "," : "", j == i ? -1 : (int)to[j]);
        if (w < 0 || (size_t)w >= sizeof(devs[i].links) - k)
            break;
        k += (size_t)w;
    }
}

/* Whether GPU 'h' is in MIG mode now (not only after its next reset). */
static bool mig_enabled(struct nvml *n, nvmlDevice_t h)
{
    unsigned current = 0, pending = 0;

    return n->mig_mode && n->mig_max && n->mig_handle && n->gi_id
           && n->ci_id && n->mig_mode(h, &current, &pending) == 0
           && current == NVML_DEVICE_MIG_ENABLE;
}

/* MIG instance 'k' of GPU 'gpu' (handle 'h') into 'd'.  -1 when there is
 * none at that index; -2 (logged) when it cannot be read. */
static int nvml_mig(struct nvml *n, nvmlDevice_t h,
                    const struct gpu_nvml_dev *gpu, unsigned k,
                    const char *mig_minors, struct gpu_nvml_dev *d)
{
    unsigned gi_minor, ci_minor;
    const char *what = "";
    char why[256] = "";
    nvmlDevice_t m;
    nvmlReturn_t rc;

    if (n->mig_handle(h, k, &m))
        return -1;
    *d = *gpu;
    d->mig = (int)k;
    d->mig_count = -1;
    d->links[0] = '\0';
    if (((rc = n->uuid(m, d->uuid, sizeof(d->uuid)))
         && (what = "nvmlDeviceGetUUID"))
        || ((rc = n->name(m, d->name, sizeof(d->name)))
            && (what = "nvmlDeviceGetName"))
        || ((rc = n->gi_id(m, &d->gi)) && (what = "nvmlDeviceGetGpuInstanceId"))
        || ((rc = n->ci_id(m, &d->ci))
            && (what = "nvmlDeviceGetComputeInstanceId")))
        snprintf(why, sizeof(why), "%s: %s", what, n->error_string(rc));
    else
        gpu_nvml_mig_minors(mig_minors, gpu->index, d->gi, d->ci, &gi_minor,
                            &ci_minor, why, sizeof(why));
    if (why[0]) {
        log_error("AutoDetect=nvml: GPU %u MIG %u: %s: left out", gpu->index,
                  k, why);
        return -2;
    }
    gpu_nvml_mig_type_name(gpu->name, d->name, d->type, sizeof(d->type));
    snprintf(d->caps[0], sizeof(d->caps[0]),
             "/dev/nvidia-caps/nvidia-cap%u", gi_minor);
    snprintf(d->caps[1], sizeof(d->caps[1]),
             "/dev/nvidia-caps/nvidia-cap%u", ci_minor);
    return 0;
}

/* The GPUs in 'gpus' (count), each in MIG mode followed by its instances:
 * a new array, its length in *total. */
static struct gpu_nvml_dev *with_migs(struct nvml *n,
                                      const struct gpu_nvml_dev *gpus,
                                      unsigned count, const char *mig_minors,
                                      size_t *total)
{
    struct gpu_nvml_dev *out = NULL;
    size_t k = 0, cap = 0;

    for (unsigned i = 0; i < count; i++) {
        unsigned max = 0;
        nvmlDevice_t h;
        bool mig = !n->handle(i, &h) && mig_enabled(n, h)
                   && !n->mig_max(h, &max);
        size_t self = k;
        if (!mig || max > MAX_MIGS)
            max = mig ? MAX_MIGS : 0;
        if (k + 1 + max > cap)
            out = xrealloc(out, (cap = 2 * (k + 1 + max)) * sizeof(*out));
        out[k++] = gpus[i];
        if (!mig)
            continue;
        out[self].mig_count = 0;
        for (unsigned m = 0; m < max; m++)
            if (nvml_mig(n, h, &gpus[i], m, mig_minors, &out[k]) == 0) {
                k++;
                out[self].mig_count++;
            }
    }
    *total = k;
    return out;
}

static int nvml_devices(struct nvml *n, const char *mig_minors,
                        struct gpu_nvml_dev **devs, char *why, size_t whylen)
{
    struct gpu_nvml_dev *gpus;
    unsigned count = 0;
    size_t total = 0;
    nvmlReturn_t rc;

    if ((rc = n->count(&count))) {
        snprintf(why, whylen, "nvmlDeviceGetCount_v2: %s",
                 n->error_string(rc));
        return -1;
    }
    gpus = xzalloc((count + 1) * sizeof(*gpus));
    for (unsigned i = 0; i < count; i++) {
        if (nvml_device(n, i, &gpus[i], why, whylen) < 0) {
            free(gpus);
            return -1;
        }
    }
    for (unsigned i = 0; i < count; i++)
        nvml_links(n, gpus, count, i);
    *devs = with_migs(n, gpus, count, mig_minors, &total);
    free(gpus);
    return (int)total;
}

int gpu_nvml_discover(const char *lib, const char *mig_minors,
                      struct gpu_nvml_dev **devs, char *why, size_t whylen)
{
    struct nvml n = { 0 };
    nvmlReturn_t rc;
    int count = -1;

    *devs = NULL;
    if (!lib)
        lib = "libnvidia-ml.so.1";
    if (!(n.dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL))) {
        snprintf(why, whylen, "cannot load %s: %s", lib, dlerror());
        return -1;
    }
    if (nvml_bind(&n, why, whylen) < 0)
        goto out;
    if ((rc = n.init())) {
        snprintf(why, whylen, "nvmlInit_v2: %s", n.error_string(rc));
        goto out;
    }
    count = nvml_devices(&n, mig_minors ? mig_minors : GPU_NVML_MIG_MINORS,
                         devs, why, whylen);
    n.shutdown();
out:
    dlclose(n.dl);
    return count;
}
