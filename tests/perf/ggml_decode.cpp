// Times ggml's flash_attn_ext on one decoding step (Tq = 1, no mask), the shape and thread count
// of `attn bench --op attention --sizes 1xHx1xTk --d D [--kv-heads G]`, for `make compare`
// (tests/perf/compare-ggml.sh builds it against a ggml you built; nothing of ggml is kept here).
//   usage: ggml_decode H G Tk D f32|f16 THREADS REPEAT WARMUP [huge]
// Prints one line: median_ms min_ms max_ms and the CPU features ggml was built with. ggml
// allocates its tensors on ordinary pages (as shipped); `huge` hands it a buffer with
// madvise(MADV_HUGEPAGE), as attn's own tensors get (kernels/aligned_memory.cpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <sys/mman.h>

#include "ggml-cpu.h"
#include "ggml.h"

int main(int argc, char** argv) {
    if (argc != 9 && argc != 10) {
        std::fprintf(stderr, "usage: %s H G Tk D f32|f16 THREADS REPEAT WARMUP [huge]\n", argv[0]);
        return 2;
    }
    const long H = std::atol(argv[1]), G = std::atol(argv[2]), Tk = std::atol(argv[3]), D = std::atol(argv[4]);
    const bool f16 = std::strcmp(argv[5], "f16") == 0;
    const int threads = std::atoi(argv[6]), repeat = std::atoi(argv[7]), warmup = std::atoi(argv[8]);
    const ggml_type kv = f16 ? GGML_TYPE_F16 : GGML_TYPE_F32;
    const std::size_t kv_bytes = std::size_t(2) * G * Tk * D * ggml_type_size(kv);
    const std::size_t huge_page = std::size_t(2) << 20;
    const std::size_t ctx_bytes = (kv_bytes + (std::size_t(64) << 20) + huge_page - 1) / huge_page * huge_page;
    void* buffer = nullptr;
    if (argc == 10 && std::strcmp(argv[9], "huge") == 0) {
        buffer = std::aligned_alloc(huge_page, ctx_bytes);
        if (!buffer) return 1;
        madvise(buffer, ctx_bytes, MADV_HUGEPAGE);
    }
    ggml_init_params ip{ctx_bytes, buffer, false};
    ggml_context* ctx = ggml_init(ip);
    ggml_tensor* q = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, D, 1, H, 1);
    ggml_tensor* k = ggml_new_tensor_4d(ctx, kv, D, Tk, G, 1);
    ggml_tensor* v = ggml_new_tensor_4d(ctx, kv, D, Tk, G, 1);
    std::mt19937 gen(1);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (ggml_tensor* t : {q, k, v}) {
        const long n = ggml_nelements(t);
        for (long i = 0; i < n; ++i) {
            if (t->type == GGML_TYPE_F16)
                static_cast<ggml_fp16_t*>(t->data)[i] = ggml_fp32_to_fp16(u(gen));
            else
                static_cast<float*>(t->data)[i] = u(gen);
        }
    }
    ggml_tensor* out = ggml_flash_attn_ext(ctx, q, k, v, nullptr, 1.0f / std::sqrt(float(D)), 0.0f, 0.0f);
    ggml_flash_attn_ext_set_prec(out, GGML_PREC_F32);
    ggml_cgraph* graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, out);
    // A persistent thread pool, as llama.cpp keeps one between decoding steps.
    ggml_threadpool_params tp = ggml_threadpool_params_default(threads);
    ggml_threadpool* pool = ggml_threadpool_new(&tp);
    ggml_cplan plan = ggml_graph_plan(graph, threads, pool);
    std::vector<unsigned char> work(plan.work_size + 64);
    plan.work_data = work.data();
    std::vector<double> ms;
    for (int i = 0; i < warmup + repeat; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        if (ggml_graph_compute(graph, &plan) != GGML_STATUS_SUCCESS) {
            std::fprintf(stderr, "ggml_graph_compute failed\n");
            return 1;
        }
        const auto t1 = std::chrono::steady_clock::now();
        if (i >= warmup) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::string features;
    if (ggml_cpu_has_avx512()) features += "avx512 ";
    if (ggml_cpu_has_avx2()) features += "avx2 ";
    if (ggml_cpu_has_fma()) features += "fma ";
    if (ggml_cpu_has_f16c()) features += "f16c ";
    if (ggml_cpu_has_neon()) features += "neon ";
    if (!features.empty()) features.pop_back();
    std::printf("%.4f %.4f %.4f %s\n", ms[ms.size() / 2], ms.front(), ms.back(), features.c_str());
    ggml_threadpool_free(pool);
    ggml_free(ctx);
    std::free(buffer);
    return 0;
}
