/*
 * A Vulkan layer that COUNTS what a process asks of the GPU: compute dispatches
 * (vkCmdDispatch / DispatchIndirect / DispatchBase), queue submits (vkQueueSubmit /
 * vkQueueSubmit2), and read-back copies (vkCmdCopyBuffer into a buffer that no shader
 * can bind: no storage, uniform, vertex, index or indirect usage, i.e. wgpu's MAP_READ |
 * COPY_DST staging buffers), with the copies' bytes; all copies too, for comparison.
 *
 * Why a layer: wgpu 30 and cubecl-wgpu 0.11 expose no dispatch or submit counters (wgpu's
 * `InternalCounters` count objects, not commands), and the browser test counts the same
 * things by wrapping the WebGPU API (web/tests/gpu-counts.mjs). Natively the Vulkan loader
 * is the one seam every command crosses.
 *
 * Use (scripts/check-gpu-lavapipe.sh does this):
 *   VK_LAYER_PATH=DIR VK_INSTANCE_LAYERS=VK_LAYER_ESPALIER_count \
 *   ESPALIER_VK_COUNTS=FILE program ...
 * At exit the layer appends one JSON line of totals to FILE (stderr when unset).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))

static uint64_t n_dispatch, n_submit, n_copy, n_copy_bytes, n_readback, n_readback_bytes;
static void add(uint64_t *c, uint64_t v) { __atomic_fetch_add(c, v, __ATOMIC_RELAXED); }

static PFN_vkGetInstanceProcAddr next_gipa;
static PFN_vkGetDeviceProcAddr next_gdpa;
static VkInstance the_instance;
static PFN_vkCmdDispatch next_dispatch;
static PFN_vkCmdDispatchIndirect next_dispatch_indirect;
static PFN_vkCmdDispatchBase next_dispatch_base;
static PFN_vkQueueSubmit next_submit;
static PFN_vkQueueSubmit2 next_submit2;
static PFN_vkQueueSubmit2 next_submit2_khr;
static PFN_vkCmdCopyBuffer next_copy;
static PFN_vkCreateBuffer next_create_buffer;
static PFN_vkDestroyBuffer next_destroy_buffer;

/* Buffer handle -> usage flags: open addressing, linear probing, under a lock. */
#define SLOTS (1u << 18)
#define TOMBSTONE ((uint64_t)-1)
static uint64_t keys[SLOTS];
static uint32_t usages[SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t slot_of(uint64_t key) { return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 46); }

static void remember(uint64_t key, uint32_t usage) {
    pthread_mutex_lock(&table_lock);
    for (uint32_t i = slot_of(key), n = 0; n < SLOTS; i = (i + 1) & (SLOTS - 1), n++) {
        if (keys[i] == 0 || keys[i] == TOMBSTONE || keys[i] == key) {
            keys[i] = key;
            usages[i] = usage;
            break;
        }
    }
    pthread_mutex_unlock(&table_lock);
}

/* Returns the usage, or 0 for an unknown buffer; `forget` removes it. */
static uint32_t lookup(uint64_t key, int forget) {
    uint32_t usage = 0;
    pthread_mutex_lock(&table_lock);
    for (uint32_t i = slot_of(key), n = 0; n < SLOTS && keys[i] != 0; i = (i + 1) & (SLOTS - 1), n++) {
        if (keys[i] == key) {
            usage = usages[i];
            if (forget) keys[i] = TOMBSTONE;
            break;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return usage;
}

static const VkBufferUsageFlags BINDABLE =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
    VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT |
    VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT |
    VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;

static VKAPI_ATTR void VKAPI_CALL cmd_dispatch(VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z) {
    add(&n_dispatch, 1);
    next_dispatch(cb, x, y, z);
}

static VKAPI_ATTR void VKAPI_CALL cmd_dispatch_indirect(VkCommandBuffer cb, VkBuffer b, VkDeviceSize o) {
    add(&n_dispatch, 1);
    next_dispatch_indirect(cb, b, o);
}

static VKAPI_ATTR void VKAPI_CALL cmd_dispatch_base(VkCommandBuffer cb, uint32_t bx, uint32_t by,
                                                   uint32_t bz, uint32_t x, uint32_t y, uint32_t z) {
    add(&n_dispatch, 1);
    next_dispatch_base(cb, bx, by, bz, x, y, z);
}

static VKAPI_ATTR VkResult VKAPI_CALL queue_submit(VkQueue q, uint32_t n, const VkSubmitInfo *s, VkFence f) {
    add(&n_submit, 1);
    return next_submit(q, n, s, f);
}

static VKAPI_ATTR VkResult VKAPI_CALL queue_submit2(VkQueue q, uint32_t n, const VkSubmitInfo2 *s, VkFence f) {
    add(&n_submit, 1);
    return next_submit2(q, n, s, f);
}

static VKAPI_ATTR VkResult VKAPI_CALL queue_submit2_khr(VkQueue q, uint32_t n, const VkSubmitInfo2 *s, VkFence f) {
    add(&n_submit, 1);
    return next_submit2_khr(q, n, s, f);
}

static VKAPI_ATTR void VKAPI_CALL cmd_copy_buffer(VkCommandBuffer cb, VkBuffer src, VkBuffer dst,
                                                  uint32_t n, const VkBufferCopy *regions) {
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < n; i++) bytes += regions[i].size;
    add(&n_copy, 1);
    add(&n_copy_bytes, bytes);
    uint32_t usage = lookup((uint64_t)dst, 0);
    if (usage != 0 && (usage & BINDABLE) == 0) {
        add(&n_readback, 1);
        add(&n_readback_bytes, bytes);
    }
    next_copy(cb, src, dst, n, regions);
}

static VKAPI_ATTR VkResult VKAPI_CALL create_buffer(VkDevice d, const VkBufferCreateInfo *info,
                                                   const VkAllocationCallbacks *a, VkBuffer *out) {
    VkResult r = next_create_buffer(d, info, a, out);
    if (r == VK_SUCCESS) remember((uint64_t)*out, info->usage);
    return r;
}

static VKAPI_ATTR void VKAPI_CALL destroy_buffer(VkDevice d, VkBuffer b, const VkAllocationCallbacks *a) {
    lookup((uint64_t)b, 1);
    next_destroy_buffer(d, b, a);
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name);
EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name);

static VKAPI_ATTR VkResult VKAPI_CALL create_instance(const VkInstanceCreateInfo *info,
                                                     const VkAllocationCallbacks *a, VkInstance *out) {
    VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)info->pNext;
    while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
                     link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerInstanceCreateInfo *)link->pNext;
    if (!link) return VK_ERROR_INITIALIZATION_FAILED;
    next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateInstance next = (PFN_vkCreateInstance)next_gipa(VK_NULL_HANDLE, "vkCreateInstance");
    VkResult r = next(info, a, out);
    if (r == VK_SUCCESS) the_instance = *out;
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL create_device(VkPhysicalDevice pd, const VkDeviceCreateInfo *info,
                                                   const VkAllocationCallbacks *a, VkDevice *out) {
    VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)info->pNext;
    while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
                     link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerDeviceCreateInfo *)link->pNext;
    if (!link) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateDevice next = (PFN_vkCreateDevice)gipa(the_instance, "vkCreateDevice");
    VkResult r = next(pd, info, a, out);
    if (r != VK_SUCCESS) return r;
    VkDevice d = *out;
#define NEXT(field, type, fname) field = (type)next_gdpa(d, fname)
    NEXT(next_dispatch, PFN_vkCmdDispatch, "vkCmdDispatch");
    NEXT(next_dispatch_indirect, PFN_vkCmdDispatchIndirect, "vkCmdDispatchIndirect");
    NEXT(next_dispatch_base, PFN_vkCmdDispatchBase, "vkCmdDispatchBase");
    NEXT(next_submit, PFN_vkQueueSubmit, "vkQueueSubmit");
    NEXT(next_submit2, PFN_vkQueueSubmit2, "vkQueueSubmit2");
    NEXT(next_submit2_khr, PFN_vkQueueSubmit2, "vkQueueSubmit2KHR");
    NEXT(next_copy, PFN_vkCmdCopyBuffer, "vkCmdCopyBuffer");
    NEXT(next_create_buffer, PFN_vkCreateBuffer, "vkCreateBuffer");
    NEXT(next_destroy_buffer, PFN_vkDestroyBuffer, "vkDestroyBuffer");
#undef NEXT
    return r;
}

/* Our function for a device-level name, when the next layer has one to wrap. */
static PFN_vkVoidFunction ours(const char *name) {
#define OURS(fname, fn, next) if (!strcmp(name, fname)) return next ? (PFN_vkVoidFunction)fn : NULL
    OURS("vkCmdDispatch", cmd_dispatch, next_dispatch);
    OURS("vkCmdDispatchIndirect", cmd_dispatch_indirect, next_dispatch_indirect);
    OURS("vkCmdDispatchBase", cmd_dispatch_base, next_dispatch_base);
    OURS("vkCmdDispatchBaseKHR", cmd_dispatch_base, next_dispatch_base);
    OURS("vkQueueSubmit", queue_submit, next_submit);
    OURS("vkQueueSubmit2", queue_submit2, next_submit2);
    OURS("vkQueueSubmit2KHR", queue_submit2_khr, next_submit2_khr);
    OURS("vkCmdCopyBuffer", cmd_copy_buffer, next_copy);
    OURS("vkCreateBuffer", create_buffer, next_create_buffer);
    OURS("vkDestroyBuffer", destroy_buffer, next_destroy_buffer);
#undef OURS
    return NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name) {
    if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
    PFN_vkVoidFunction f = ours(name);
    if (f) return f;
    return next_gdpa ? next_gdpa(device, name) : NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name) {
    if (!strcmp(name, "vkGetInstanceProcAddr")) return (PFN_vkVoidFunction)vkGetInstanceProcAddr;
    if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
    if (!strcmp(name, "vkCreateInstance")) return (PFN_vkVoidFunction)create_instance;
    if (!strcmp(name, "vkCreateDevice")) return (PFN_vkVoidFunction)create_device;
    PFN_vkVoidFunction f = ours(name);
    if (f) return f;
    return next_gipa ? next_gipa(instance, name) : NULL;
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("ESPALIER_VK_COUNTS");
    FILE *out = path ? fopen(path, "a") : stderr;
    if (!out) return;
    fprintf(out,
            "{\"dispatches\":%llu,\"submits\":%llu,\"copies\":%llu,\"copy_bytes\":%llu,"
            "\"readback_copies\":%llu,\"readback_bytes\":%llu}\n",
            (unsigned long long)n_dispatch, (unsigned long long)n_submit, (unsigned long long)n_copy,
            (unsigned long long)n_copy_bytes, (unsigned long long)n_readback,
            (unsigned long long)n_readback_bytes);
    if (path) fclose(out);
}
