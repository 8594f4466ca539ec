/* SPDX-License-Identifier: Apache-2.0
 *
 * fake_nvml.c - a libnvidia-ml.so.1 for tests: the NVML calls droverd
 * makes, answered from a text file, so AutoDetect=nvml runs end to end
 * (dlopen included) without a GPU.
 *
 * $DROVER_FAKE_NVML names the file; one GPU per line, '#' comments:
 *
 *   name|uuid|minor|cpus|bus_id|nvlinks[|migs]
 *   NVIDIA H100 80GB HBM3|GPU-11111111-2222-3333-4444-555555555555|0|0-3|00000000:1B:00.0|00000000:2C:00.0 00000000:2C:00.0
 *   NVIDIA A100-SXM4-80GB|GPU-a|1||00000000:3D:00.0||1g.10gb,1,0,MIG-x;2g.20gb,3,0,MIG-y
 *
 * cpus is a CPU list ("" for no affinity); nvlinks the remote bus id of
 * each active NVLink, space separated ("" for none).  migs, when given
 * and not empty, puts the GPU in MIG mode: its MIG instances, ';'
 * separated, each "profile,gpu instance id,compute instance id,uuid"
 * (named "<GPU name> MIG <profile>" as NVML names them); "-" is MIG mode
 * without instances.  Without the
 * variable, or with a file that cannot be read, nvmlInit_v2 fails with
 * NVML_ERROR_DRIVER_NOT_LOADED, as on a host without the driver.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GPUS 64
#define MAX_LINKS 18
#define MAX_MIGS 7 /* MIG instances of one GPU (an A100's most) */

typedef int nvmlReturn_t;
enum {
    SUCCESS = 0, UNINITIALIZED = 1, INVALID_ARGUMENT = 2, NOT_SUPPORTED = 3,
    INSUFFICIENT_SIZE = 7, DRIVER_NOT_LOADED = 9, NOT_FOUND = 6,
};

typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

struct gpu {
    char name[96], uuid[96], bus_id[32];
    unsigned minor;
    unsigned long cpus[64];
    char links[MAX_LINKS][32];
    unsigned nlinks;
    int mig_mode;          /* 1: MIG enabled (on a GPU) */
    struct gpu *migs;      /* its MIG instances (MAX_MIGS), or NULL */
    unsigned nmigs;
    unsigned gi, ci;       /* a MIG instance's ids */
    int is_mig;
};

typedef struct gpu *nvmlDevice_t;

static struct gpu gpus[MAX_GPUS];
static struct gpu migs[MAX_GPUS][MAX_MIGS];
static unsigned ngpus;
static int inited;

/* The entry points (NVML's signatures). */
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t rc);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int len);
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int *minor);
nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t d, unsigned int size,
                                      unsigned long *set);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link,
                                      int *active);
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d,
                                                 unsigned int link,
                                                 nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *current,
                                  unsigned int *pending);
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d,
                                            unsigned int *count);
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d,
                                                 unsigned int i,
                                                 nvmlDevice_t *mig);
nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id);
nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d,
                                            unsigned int *id);

static void set_cpus(struct gpu *g, char *list)
{
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        char *dash = strchr(tok, '-');
        unsigned lo = (unsigned)atoi(tok), hi = dash ? (unsigned)atoi(dash + 1)
                                                     : lo;
        for (unsigned c = lo; c <= hi && c < 64 * 8 * sizeof(long); c++)
            g->cpus[c / (8 * sizeof(long))] |= 1UL << (c % (8 * sizeof(long)));
    }
}

/* "profile,gi,ci,uuid;..." into g's instances (storage 'm'). */
static void set_migs(struct gpu *g, struct gpu *m, char *list)
{
    char *save = NULL;

    g->mig_mode = 1;
    g->migs = m;
    for (char *tok = strtok_r(list, ";", &save); tok && g->nmigs < MAX_MIGS;
         tok = strtok_r(NULL, ";", &save)) {
        char profile[32] = "", uuid[96] = "";
        struct gpu *i = &m[g->nmigs];
        memset(i, 0, sizeof(*i));
        if (sscanf(tok, "%31[^,],%u,%u,%95s", profile, &i->gi, &i->ci,
                   uuid) != 4)
            continue;
        snprintf(i->name, sizeof(i->name), "%.60s MIG %s", g->name, profile);
        snprintf(i->uuid, sizeof(i->uuid), "%s", uuid);
        i->minor = g->minor;
        i->is_mig = 1;
        g->nmigs++;
    }
}

static int parse_line(char *line, struct gpu *g, struct gpu *m)
{
    char *f[7] = { 0 };
    size_t n = 0;

    for (char *p = line; n < 7; n++) {
        f[n] = p;
        if (!(p = strchr(p, '|'))) {
            n++;
            break;
        }
        *p++ = '\0';
    }
    if (n != 6 && n != 7)
        return -1;
    memset(g, 0, sizeof(*g));
    snprintf(g->name, sizeof(g->name), "%s", f[0]);
    snprintf(g->uuid, sizeof(g->uuid), "%s", f[1]);
    g->minor = (unsigned)atoi(f[2]);
    set_cpus(g, f[3]);
    snprintf(g->bus_id, sizeof(g->bus_id), "%s", f[4]);
    for (char *tok = strtok(f[5], " "); tok && g->nlinks < MAX_LINKS;
         tok = strtok(NULL, " "))
        snprintf(g->links[g->nlinks++], sizeof(g->links[0]), "%s", tok);
    if (f[6] && f[6][0])
        set_migs(g, m, f[6]);
    return 0;
}

nvmlReturn_t nvmlInit_v2(void)
{
    const char *path = getenv("DROVER_FAKE_NVML");
    char line[1024];
    FILE *f;

    if (!path || !(f = fopen(path, "r")))
        return DRIVER_NOT_LOADED;
    ngpus = 0;
    while (fgets(line, sizeof(line), f) && ngpus < MAX_GPUS) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] && line[0] != '#'
            && parse_line(line, &gpus[ngpus], migs[ngpus]) == 0)
            ngpus++;
    }
    fclose(f);
    inited = 1;
    return SUCCESS;
}

nvmlReturn_t nvmlShutdown(void)
{
    if (!inited)
        return UNINITIALIZED;
    inited = 0;
    return SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t rc)
{
    switch (rc) {
    case SUCCESS: return "Success";
    case UNINITIALIZED: return "Uninitialized";
    case INVALID_ARGUMENT: return "Invalid Argument";
    case NOT_SUPPORTED: return "Not Supported";
    case NOT_FOUND: return "Not Found";
    case INSUFFICIENT_SIZE: return "Insufficient Size";
    case DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    if (!inited)
        return UNINITIALIZED;
    *count = ngpus;
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
    if (!inited)
        return UNINITIALIZED;
    if (i >= ngpus)
        return INVALID_ARGUMENT;
    *d = &gpus[i];
    return SUCCESS;
}

static nvmlReturn_t copy(char *out, unsigned int len, const char *s)
{
    if (strlen(s) >= len)
        return INSUFFICIENT_SIZE;
    strcpy(out, s);
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len)
{
    return copy(name, len, d->name);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int len)
{
    return copy(uuid, len, d->uuid);
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int *minor)
{
    *minor = d->minor;
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t d, unsigned int size,
                                      unsigned long *set)
{
    for (unsigned i = 0; i < size; i++)
        set[i] = i < 64 ? d->cpus[i] : 0;
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci)
{
    memset(pci, 0, sizeof(*pci));
    snprintf(pci->busId, sizeof(pci->busId), "%s", d->bus_id);
    snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%.15s",
             d->bus_id + (strlen(d->bus_id) > 12 ? 4 : 0));
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link,
                                      int *active)
{
    if (!d->nlinks)
        return NOT_SUPPORTED;
    if (link >= MAX_LINKS)
        return INVALID_ARGUMENT;
    *active = link < d->nlinks;
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d,
                                                 unsigned int link,
                                                 nvmlPciInfo_t *pci)
{
    if (link >= d->nlinks)
        return INVALID_ARGUMENT;
    memset(pci, 0, sizeof(*pci));
    snprintf(pci->busId, sizeof(pci->busId), "%s", d->links[link]);
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *current,
                                  unsigned int *pending)
{
    if (d->is_mig)
        return INVALID_ARGUMENT;
    if (!d->mig_mode)
        return NOT_SUPPORTED; /* as a GPU without MIG */
    *current = *pending = 1;
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d,
                                            unsigned int *count)
{
    if (d->is_mig)
        return INVALID_ARGUMENT;
    *count = d->mig_mode ? MAX_MIGS : 0;
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d,
                                                 unsigned int i,
                                                 nvmlDevice_t *mig)
{
    if (d->is_mig || !d->mig_mode || i >= MAX_MIGS)
        return INVALID_ARGUMENT;
    if (i >= d->nmigs)
        return NOT_FOUND;
    *mig = &d->migs[i];
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id)
{
    if (!d->is_mig)
        return NOT_SUPPORTED;
    *id = d->gi;
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int *id)
{
    if (!d->is_mig)
        return NOT_SUPPORTED;
    *id = d->ci;
    return SUCCESS;
}
