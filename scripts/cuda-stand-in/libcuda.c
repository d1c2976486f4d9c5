// A stand-in CUDA driver (libcuda.so.1) that compiles and never runs: for
// scripts/check-cuda-kernels.sh, on machines without an NVIDIA GPU.
//
// Why by hand: the CUDA backend (cubecl-cuda through cudarc) compiles each kernel only
// when it launches it, and it launches nothing without a driver and a device. This
// library answers the driver calls cubecl-cuda and espalier's probe make as an H100 SXM
// would (compute capability 9.0, 132 SMs, 227 KiB of shared memory a block, driver 580 =
// CUDA 13.0), so every kernel a generation launches is generated and compiled to PTX (by
// LLVM's NVPTX backend, burn-cuda's default, or by NVRTC) and handed to cuModuleLoadData,
// which writes it out (ESPALIER_STANDIN_PTX=DIR) for ptxas to check.
//
// Nothing executes: "device" memory is host memory, uploads are memcpy, a launch only
// checks and records its configuration, a graph only counts its launches. Fresh
// allocations and every read back are filled with ESPALIER_STANDIN_FILL (a u32, default
// 256), so a token id read back from a kernel that never ran is an ordinary token and a
// generation goes on to its later steps (the recorded decode step, the sampler's lists).
//
// ESPALIER_STANDIN_LAUNCHES=FILE appends one line per distinct launch configuration:
// `function grid_x grid_y grid_z block_x block_y block_z dynamic_shared_bytes`, which the
// script holds against ptxas' resource figures for sm_90a. ESPALIER_STANDIN_COUNTS=FILE
// gets one JSON line when the process ends: modules loaded, kernels launched (the
// captured ones too), graphs captured, graph launches (a replayed decode step is one)
// and the kernels in the last graph captured. Calls it does not know
// are absent: cudarc then panics naming the symbol, which is how this file grows.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
#define OK 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NOT_FOUND 500
#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long modules, launches, captures, graph_launches, graph_kernels;

// ESPALIER_STANDIN_TIMELINE=FILE: one line per graph launch, kernel launch outside a
// capture, upload and read back, `nanoseconds event detail bytes`, in the order the host
// issued them: where a step's graph goes out against its mask's upload and its read.
static FILE *timeline_file;
static void timeline(const char *event, const char *detail, size_t bytes) {
    const char *path = getenv("ESPALIER_STANDIN_TIMELINE");
    if (!path) return;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    pthread_mutex_lock(&lock);
    if (!timeline_file) timeline_file = fopen(path, "w");
    if (timeline_file)
        fprintf(timeline_file, "%lld %s %s %zu\n", (long long)t.tv_sec * 1000000000LL + t.tv_nsec,
                event, detail, bytes);
    pthread_mutex_unlock(&lock);
}

__attribute__((destructor)) static void write_counts(void) {
    if (timeline_file) fclose(timeline_file);
    const char *path = getenv("ESPALIER_STANDIN_COUNTS");
    FILE *out = path ? fopen(path, "a") : NULL;
    if (!out) return;
    fprintf(out, "{\"modules\": %llu, \"launches\": %llu, \"captures\": %llu, "
                 "\"graph_launches\": %llu, \"graph_kernels\": %llu}\n",
            modules, launches, captures, graph_launches, graph_kernels);
    fclose(out);
}

// ---- memory -------------------------------------------------------------------------

static void *fresh(size_t bytes) {
    size_t words = (bytes + 3) / 4;
    uint32_t *p = malloc(words * 4 + 16);
    if (!p) return NULL;
    const char *env = getenv("ESPALIER_STANDIN_FILL");
    uint32_t fill = env ? (uint32_t)strtoul(env, NULL, 0) : 256;
    for (size_t i = 0; i < words; i++) p[i] = fill;
    return p;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes) {
    void *p = fresh(bytes);
    if (!p) return 2; // CUDA_ERROR_OUT_OF_MEMORY
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return OK;
}
EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, void *stream) {
    (void)stream;
    return cuMemAlloc_v2(dptr, bytes);
}
EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr) {
    free((void *)(uintptr_t)dptr);
    return OK;
}
EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, void *stream) {
    (void)stream;
    return cuMemFree_v2(dptr);
}
EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytes) {
    *pp = fresh(bytes);
    return *pp ? OK : 2;
}
EXPORT CUresult cuMemFreeHost(void *p) {
    free(p);
    return OK;
}
EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
    *free_bytes = (size_t)70 << 30;
    *total = (size_t)80 << 30;
    return OK;
}
EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, void *s) {
    (void)s;
    timeline("write", "-", n);
    memcpy((void *)(uintptr_t)dst, src, n);
    return OK;
}
EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
    return cuMemcpyHtoDAsync_v2(dst, src, n, NULL);
}
// A read back answers the fill, not the memory: no kernel ran, so what a buffer holds is
// not a result, and the fill keeps a generation going (the token id a kernel "chose").
EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, void *s) {
    (void)s;
    (void)src;
    timeline("read", "-", n);
    uint32_t *words = fresh(n);
    if (!words) return 2;
    memcpy(dst, words, n);
    free(words);
    return OK;
}
EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
    return cuMemcpyDtoHAsync_v2(dst, src, n, NULL);
}
EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s) {
    (void)s;
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return OK;
}
EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, void *s) {
    (void)s;
    memset((void *)(uintptr_t)dst, v, n);
    return OK;
}

// CUDA_MEMCPY2D, as cuda.h lays it out.
typedef struct {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} Memcpy2D;
enum { MEMORY_HOST = 1, MEMORY_DEVICE = 2, MEMORY_UNIFIED = 4 };

EXPORT CUresult cuMemcpy2DAsync_v2(const Memcpy2D *c, void *stream) {
    (void)stream;
    const char *src = c->srcMemoryType == MEMORY_HOST ? (const char *)c->srcHost
                                                      : (const char *)(uintptr_t)c->srcDevice;
    char *dst = c->dstMemoryType == MEMORY_HOST ? (char *)c->dstHost
                                                : (char *)(uintptr_t)c->dstDevice;
    if (!src || !dst) return CUDA_ERROR_INVALID_VALUE;
    for (size_t row = 0; row < c->Height; row++)
        memmove(dst + (c->dstY + row) * c->dstPitch + c->dstXInBytes,
                src + (c->srcY + row) * c->srcPitch + c->srcXInBytes, c->WidthInBytes);
    return OK;
}

// ---- device, context, driver --------------------------------------------------------

EXPORT CUresult cuInit(unsigned flags) {
    (void)flags;
    return OK;
}
EXPORT CUresult cuDriverGetVersion(int *v) {
    *v = 13000;
    return OK;
}
EXPORT CUresult cuDeviceGetCount(int *n) {
    *n = 1;
    return OK;
}
EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    if (ordinal != 0) return 101; // CUDA_ERROR_INVALID_DEVICE
    *d = 0;
    return OK;
}
EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    (void)d;
    snprintf(name, (size_t)len, "NVIDIA H100 80GB HBM3 (espalier stand-in: compiles, never runs)");
    return OK;
}
EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) {
    (void)d;
    *bytes = (size_t)80 << 30;
    return OK;
}
EXPORT CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice d) {
    (void)d;
    snprintf(id, (size_t)len, "0000:00:00.0");
    return OK;
}
EXPORT CUresult cuDeviceGetUuid_v2(unsigned char *uuid, CUdevice d) {
    (void)d;
    memset(uuid, 0x5a, 16);
    return OK;
}
EXPORT CUresult cuDeviceGetUuid(unsigned char *uuid, CUdevice d) {
    return cuDeviceGetUuid_v2(uuid, d);
}

// An H100 SXM's figures (`deviceQuery` / the CUDA programming guide's table for 9.0).
EXPORT CUresult cuDeviceGetAttribute(int *v, int attribute, CUdevice d) {
    (void)d;
    switch (attribute) {
    case 1: *v = 1024; break;           // MAX_THREADS_PER_BLOCK
    case 2: case 3: *v = 1024; break;   // MAX_BLOCK_DIM_X, _Y
    case 4: *v = 64; break;             // MAX_BLOCK_DIM_Z
    case 5: *v = 2147483647; break;     // MAX_GRID_DIM_X
    case 6: case 7: *v = 65535; break;  // MAX_GRID_DIM_Y, _Z
    case 8: *v = 49152; break;          // MAX_SHARED_MEMORY_PER_BLOCK
    case 9: *v = 65536; break;          // TOTAL_CONSTANT_MEMORY
    case 10: *v = 32; break;            // WARP_SIZE
    case 12: *v = 65536; break;         // MAX_REGISTERS_PER_BLOCK
    case 13: *v = 1980000; break;       // CLOCK_RATE (kHz)
    case 16: *v = 132; break;           // MULTIPROCESSOR_COUNT
    case 36: *v = 2619000; break;       // MEMORY_CLOCK_RATE
    case 37: *v = 5120; break;          // GLOBAL_MEMORY_BUS_WIDTH
    case 38: *v = 52428800; break;      // L2_CACHE_SIZE
    case 39: *v = 2048; break;          // MAX_THREADS_PER_MULTIPROCESSOR
    case 75: *v = 9; break;             // COMPUTE_CAPABILITY_MAJOR
    case 76: *v = 0; break;             // COMPUTE_CAPABILITY_MINOR
    case 81: *v = 233472; break;        // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
    case 82: *v = 65536; break;         // MAX_REGISTERS_PER_MULTIPROCESSOR
    case 97: *v = 232448; break;        // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    case 106: *v = 32; break;           // MAX_BLOCKS_PER_MULTIPROCESSOR
    case 115: *v = 1; break;            // MEMORY_POOLS_SUPPORTED
    default:
        fprintf(stderr, "cuda stand-in: device attribute %d answered 0\n", attribute);
        *v = 0;
    }
    return OK;
}

static int context_token;
EXPORT CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d) {
    (void)d;
    *ctx = &context_token;
    return OK;
}
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
    (void)d;
    return OK;
}
EXPORT CUresult cuCtxSetCurrent(void *ctx) {
    (void)ctx;
    return OK;
}
EXPORT CUresult cuCtxGetCurrent(void **ctx) {
    *ctx = &context_token;
    return OK;
}
EXPORT CUresult cuCtxGetDevice(CUdevice *d) {
    *d = 0;
    return OK;
}
EXPORT CUresult cuCtxSynchronize(void) { return OK; }
EXPORT CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest) {
    *least = 0;
    *greatest = -5;
    return OK;
}

static const char *error_text(CUresult e) {
    switch (e) {
    case OK: return "CUDA_SUCCESS";
    case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
    case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
    case CUDA_ERROR_NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
    default: return "CUDA_ERROR_UNKNOWN (stand-in)";
    }
}
EXPORT CUresult cuGetErrorString(CUresult e, const char **text) {
    *text = error_text(e);
    return OK;
}
EXPORT CUresult cuGetErrorName(CUresult e, const char **text) {
    *text = error_text(e);
    return OK;
}

// ---- streams and events --------------------------------------------------------------

typedef struct Graph Graph;
typedef struct {
    Graph *capturing;
} Stream;

EXPORT CUresult cuStreamCreateWithPriority(Stream **s, unsigned flags, int priority) {
    (void)flags;
    (void)priority;
    *s = calloc(1, sizeof(Stream));
    return OK;
}
EXPORT CUresult cuStreamCreate(Stream **s, unsigned flags) {
    return cuStreamCreateWithPriority(s, flags, 0);
}
EXPORT CUresult cuStreamDestroy_v2(Stream *s) {
    free(s);
    return OK;
}
EXPORT CUresult cuStreamSynchronize(Stream *s) {
    (void)s;
    return OK;
}
EXPORT CUresult cuStreamQuery(Stream *s) {
    (void)s;
    return OK;
}
EXPORT CUresult cuStreamWaitEvent(Stream *s, void *e, unsigned flags) {
    (void)s;
    (void)e;
    (void)flags;
    return OK;
}

static int event_token;
EXPORT CUresult cuEventCreate(void **e, unsigned flags) {
    (void)flags;
    *e = &event_token;
    return OK;
}
EXPORT CUresult cuEventDestroy_v2(void *e) {
    (void)e;
    return OK;
}
EXPORT CUresult cuEventRecord(void *e, Stream *s) {
    (void)e;
    (void)s;
    return OK;
}
EXPORT CUresult cuEventRecordWithFlags(void *e, Stream *s, unsigned flags) {
    (void)flags;
    return cuEventRecord(e, s);
}
EXPORT CUresult cuEventSynchronize(void *e) {
    (void)e;
    return OK;
}
EXPORT CUresult cuEventQuery(void *e) {
    (void)e;
    return OK;
}
EXPORT CUresult cuEventElapsedTime(float *ms, void *start, void *end) {
    (void)start;
    (void)end;
    *ms = 0.0f;
    return OK;
}
EXPORT CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) {
    return cuEventElapsedTime(ms, start, end);
}

// ---- modules, functions, launches ----------------------------------------------------

typedef struct {
    char name[256];
} Function;

// ESPALIER_STANDIN_PTX=DIR: each module's PTX as DIR/<entry>.ptx (cubecl's own dump,
// CUBECL_CUDA_DUMP_PTX, names files by the tail of the kernel's id, where variants of one
// kernel collide).
static void write_ptx(const char *ptx) {
    const char *dir = getenv("ESPALIER_STANDIN_PTX");
    const char *entry = strstr(ptx, ".entry ");
    if (!dir || !entry) return;
    entry += strlen(".entry ");
    size_t len = strcspn(entry, "( \n");
    char path[4096];
    snprintf(path, sizeof(path), "%s/%.*s.ptx", dir, (int)(len < 200 ? len : 200), entry);
    FILE *out = fopen(path, "w");
    if (out) {
        fputs(ptx, out);
        fclose(out);
    }
}

EXPORT CUresult cuModuleLoadData(void **module, const void *image) {
    if (!image || strstr((const char *)image, ".entry ") == NULL) return 218; // INVALID_PTX
    write_ptx((const char *)image);
    __atomic_add_fetch(&modules, 1, __ATOMIC_RELAXED);
    *module = strdup((const char *)image);
    return OK;
}
EXPORT CUresult cuModuleUnload(void *module) {
    free(module);
    return OK;
}
EXPORT CUresult cuModuleGetFunction(Function **f, void *module, const char *name) {
    if (strstr((const char *)module, name) == NULL) return CUDA_ERROR_NOT_FOUND;
    *f = calloc(1, sizeof(Function));
    snprintf((*f)->name, sizeof((*f)->name), "%s", name);
    return OK;
}
EXPORT CUresult cuFuncSetAttribute(Function *f, int attribute, int value) {
    (void)f;
    // 8: MAX_DYNAMIC_SHARED_SIZE_BYTES, at most the opt-in limit.
    if (attribute == 8 && value > 232448) return CUDA_ERROR_INVALID_VALUE;
    return OK;
}
EXPORT CUresult cuFuncGetAttribute(int *v, int attribute, Function *f) {
    (void)f;
    *v = attribute == 0 ? 1024 : 0; // MAX_THREADS_PER_BLOCK
    return OK;
}

#define MAX_SEEN 4096
static char seen[MAX_SEEN][320];
static int seen_count;

static void record_launch(const Function *f, unsigned gx, unsigned gy, unsigned gz,
                          unsigned bx, unsigned by, unsigned bz, unsigned shared) {
    const char *path = getenv("ESPALIER_STANDIN_LAUNCHES");
    if (!path) return;
    char line[320];
    snprintf(line, sizeof(line), "%s %u %u %u %u %u %u %u", f->name, gx, gy, gz, bx, by, bz,
             shared);
    pthread_mutex_lock(&lock);
    for (int i = 0; i < seen_count; i++)
        if (strcmp(seen[i], line) == 0) {
            pthread_mutex_unlock(&lock);
            return;
        }
    if (seen_count < MAX_SEEN) memcpy(seen[seen_count++], line, sizeof(line));
    FILE *out = fopen(path, "a");
    if (out) {
        fprintf(out, "%s\n", line);
        fclose(out);
    }
    pthread_mutex_unlock(&lock);
}

struct Graph {
    size_t launches;
};

EXPORT CUresult cuLaunchKernel(Function *f, unsigned gx, unsigned gy, unsigned gz,
                               unsigned bx, unsigned by, unsigned bz, unsigned shared,
                               Stream *s, void **params, void **extra) {
    (void)params;
    (void)extra;
    // What a device refuses at launch: more than 1,024 threads, a grid past its limits,
    // more dynamic shared memory than a block may opt into.
    if ((unsigned long long)bx * by * bz > 1024 || bz > 64 || gy > 65535 || gz > 65535 ||
        shared > 232448 || gx == 0 || gy == 0 || gz == 0)
        return CUDA_ERROR_INVALID_VALUE;
    record_launch(f, gx, gy, gz, bx, by, bz, shared);
    __atomic_add_fetch(&launches, 1, __ATOMIC_RELAXED);
    if (s && s->capturing)
        s->capturing->launches++;
    else
        timeline("launch", f->name, 0);
    return OK;
}

// ---- graphs (a recorded decode step) --------------------------------------------------

EXPORT CUresult cuStreamBeginCapture_v2(Stream *s, int mode) {
    (void)mode;
    if (!s || s->capturing) return CUDA_ERROR_INVALID_VALUE;
    s->capturing = calloc(1, sizeof(Graph));
    __atomic_add_fetch(&captures, 1, __ATOMIC_RELAXED);
    return OK;
}
EXPORT CUresult cuStreamEndCapture(Stream *s, Graph **graph) {
    if (!s || !s->capturing) return CUDA_ERROR_INVALID_VALUE;
    *graph = s->capturing;
    graph_kernels = s->capturing->launches;
    s->capturing = NULL;
    return OK;
}
EXPORT CUresult cuGraphDestroy(Graph *g) {
    free(g);
    return OK;
}
// Nodes are the graph's launches: handles 1..n, every one a kernel node.
EXPORT CUresult cuGraphGetNodes(Graph *g, void **nodes, size_t *count) {
    if (nodes)
        for (size_t i = 0; i < *count && i < g->launches; i++) nodes[i] = (void *)(uintptr_t)(i + 1);
    *count = g->launches;
    return OK;
}
EXPORT CUresult cuGraphNodeGetType(void *node, int *type) {
    (void)node;
    *type = 0; // CU_GRAPH_NODE_TYPE_KERNEL
    return OK;
}
EXPORT CUresult cuGraphInstantiateWithFlags(void **exec, Graph *g, unsigned long long flags) {
    (void)flags;
    Graph *copy = malloc(sizeof(Graph));
    *copy = *g;
    *exec = copy;
    return OK;
}
EXPORT CUresult cuGraphUpload(void *exec, Stream *s) {
    (void)exec;
    (void)s;
    return OK;
}
EXPORT CUresult cuGraphLaunch(void *exec, Stream *s) {
    (void)exec;
    (void)s;
    __atomic_add_fetch(&graph_launches, 1, __ATOMIC_RELAXED);
    timeline("graph", "-", 0);
    return OK;
}
EXPORT CUresult cuGraphExecDestroy(void *exec) {
    free(exec);
    return OK;
}
