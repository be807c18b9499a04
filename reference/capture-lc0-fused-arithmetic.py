#!/usr/bin/env python3
"""Compiles lc0's own search arithmetic as lc0's build compiles it and records its results bit for bit.

usage: capture-lc0-fused-arithmetic.py LC0_SOURCE OUT

lc0's meson build passes -march=native (its `native_arch` option, on by default), and GCC contracts a product
followed by a sum into one fused multiply-add (its default -ffp-contract=fast) wherever the CPU has FMA: every x86-64
CPU since 2013, every ARM64 one. So lc0's FastLog2, FastExp2, cpuct, FPU, moves-left utility and WDL rescaling round
differently from the same source compiled without FMA, and a search that mirrors them must fuse where GCC fused.

The script copies the functions verbatim from lc0's sources (utils/fastmath.h by #include; WDLRescale, GetFpu,
ComputeCpuct and MEvaluator from src/search/classic/search.cc; the contempt parameter functions from
src/search/classic/params.cc) around small stand-ins for SearchParams and Node, compiles them with
`g++ -O3 -march=native` (the CPU must have FMA, which the script checks), and evaluates them on seeded random
inputs, keeping every case where the result differs from the same program compiled without -march=native (where
fusion cannot happen) and as many cases again where it does not. Values are written as the hex of their bits.
"""
import json, os, re, subprocess, sys, tempfile

source, out = sys.argv[1:3]
search = open(os.path.join(source, "src/search/classic/search.cc")).read()
params = open(os.path.join(source, "src/search/classic/params.cc")).read()


def extract(text, start, end):
    """The text from `start` to the first `end` after it, both included."""
    at = text.index(start)
    return text[at:text.index(end, at) + len(end)]


functions = "\n".join([
    extract(search, "class MEvaluator {", "\n};\n"),
    extract(search, "inline double WDLRescale(", "\n}\n"),
    extract(search, "// Faster version for if visited_policy is readily available already.\ninline float GetFpu(",
            "\n}\n").split("\n", 1)[1],
    extract(search, "inline float ComputeCpuct(", "\n}\n"),
    extract(params, "BaseSearchParams::WDLRescaleParams AccurateWDLRescaleParams(", "\n}\n"),
    extract(params, "float ConvertRegularToGamePairElo(", "\n}\n"),
    extract(params, "BaseSearchParams::WDLRescaleParams SimplifiedWDLRescaleParams(", "\n}\n"),
])

program = r"""
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include "utils/fastmath.h"
using namespace lczero;
struct BaseSearchParams {
  struct WDLRescaleParams {
    WDLRescaleParams(float r, float d) { ratio = r; diff = d; }
    float ratio;
    float diff;
  };
};
// Stand-ins with the members lc0's functions call, the values set per case.
struct SearchParams {
  float cpuct, cpuct_base, cpuct_factor, fpu_value;
  bool fpu_absolute;
  float ml_slope = 0.0027f, ml_max = 0.0345f, ml_constant = 0.0f, ml_scaled = 1.6521f, ml_quadratic = -0.6521f;
  float ml_threshold = 0.8f;
  float GetCpuct(bool) const { return cpuct; }
  float GetCpuctBase(bool) const { return cpuct_base; }
  float GetCpuctFactor(bool) const { return cpuct_factor; }
  float GetFpuValue(bool) const { return fpu_value; }
  bool GetFpuAbsolute(bool) const { return fpu_absolute; }
  float GetMovesLeftSlope() const { return ml_slope; }
  float GetMovesLeftMaxEffect() const { return ml_max; }
  float GetMovesLeftConstantFactor() const { return ml_constant; }
  float GetMovesLeftScaledFactor() const { return ml_scaled; }
  float GetMovesLeftQuadraticFactor() const { return ml_quadratic; }
  float GetMovesLeftThreshold() const { return ml_threshold; }
};
struct Node {
  double wl_;
  float d_, m_;
  float GetQ(float draw_score) const { return wl_ + draw_score * d_; }
  float GetM() const { return m_; }
};
// MEvaluator's overload for an edge reads only these.
struct EdgeAndNode {
  Node* node_;
  uint32_t GetN() const { return 1; }
  Node* node() const { return node_; }
};
namespace {
FUNCTIONS
}
static uint32_t bits(float x) { uint32_t b; std::memcpy(&b, &x, 4); return b; }
static uint64_t bits(double x) { uint64_t b; std::memcpy(&b, &x, 8); return b; }
__attribute__((noinline)) float fast_log2(float a) { return FastLog2(a); }
__attribute__((noinline)) float fast_exp2(float a) { return FastExp2(a); }
__attribute__((noinline)) float fast_logistic(float a) { return FastLogistic(a); }
__attribute__((noinline)) float cpuct(const SearchParams& p, uint32_t n) { return ComputeCpuct(p, n, false); }
__attribute__((noinline)) float fpu(const SearchParams& p, const Node& node, float draw_score, float visited) {
  return GetFpu(p, &node, false, draw_score, visited);
}
// As PickNodesToExtendTask adds it to a child's Q (VerboseMoveStats adds it to Q + U the same way).
__attribute__((noinline)) float q_plus_m(const SearchParams& p, const Node& parent, Node* child, float q, float add) {
  MEvaluator m_evaluator(p, &parent);
  return add + m_evaluator.GetMUtility(child, q);
}
__attribute__((noinline)) double rescale(float& v, float& d, float ratio, float diff, float sign, bool invert) {
  return WDLRescale(v, d, ratio, diff, sign, invert, 1.4f);
}
int main() {
  std::mt19937 rng(20261206);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int i = 0; i < 40000; i++) {
    float x = std::ldexp(u(rng) + 0.5f, int(rng() % 40) - 20);
    printf("fast_log2 %08x %08x\n", bits(x), bits(fast_log2(x)));
    float y = (u(rng) - 0.5f) * 60.0f;
    printf("fast_exp2 %08x %08x\n", bits(y), bits(fast_exp2(y)));
    printf("fast_logistic %08x %08x\n", bits(y), bits(fast_logistic(y)));
    SearchParams p{1.745f * (0.5f + u(rng)), 38739.0f * (0.1f + u(rng)), (i % 7 == 0) ? 0.0f : 8 * u(rng),
                   u(rng), false};
    uint32_t n = rng() % 4000000;
    printf("cpuct %08x %08x %08x %u %08x\n", bits(p.cpuct), bits(p.cpuct_base), bits(p.cpuct_factor), n,
           bits(cpuct(p, n)));
    Node node{u(rng) * 2.0 - 1.0, u(rng) * 0.5f, 0.0f};
    float draw_score = (i % 3 == 0) ? 0.0f : u(rng) - 0.5f;
    float visited = u(rng);
    printf("fpu %016llx %08x %08x %08x %08x %08x\n", (unsigned long long)bits(node.wl_), bits(node.d_),
           bits(draw_score), bits(p.fpu_value), bits(visited), bits(fpu(p, node, draw_score, visited)));
    p.ml_threshold = (i % 2) ? 0.8f : 0.0f;
    Node parent{(u(rng) * 2.0 - 1.0), 0.1f, u(rng) * 100};
    Node child{0.0, 0.1f, u(rng) * 100};
    float q = u(rng) * 2 - 1, add = (i % 2) ? q : q + u(rng);
    printf("moves_left %016llx %08x %08x %08x %08x %08x %08x\n", (unsigned long long)bits(parent.wl_),
           bits(parent.m_), bits(child.m_), bits(p.ml_threshold), bits(q), bits(add),
           bits(q_plus_m(p, parent, &child, q, add)));
    float v = u(rng) * 2 - 1, d = u(rng) * (1 - std::fabs(v));
    float ratio = (i % 3 == 0) ? 1.0f : 0.5f + u(rng), diff = (i % 3 == 0) ? 0.0f : (u(rng) - 0.5f) * 0.3f;
    float sign = (i % 2) ? 1.0f : -1.0f;
    bool invert = (i % 4) < 2;
    float v2 = v, d2 = d;
    double mu = rescale(v2, d2, ratio, diff, sign, invert);
    printf("wdl_rescale %08x %08x %08x %08x %08x %d %08x %08x %016llx\n", bits(v), bits(d), bits(ratio), bits(diff),
           bits(sign), int(invert), bits(v2), bits(d2), (unsigned long long)bits(mu));
    float contempt = (u(rng) - 0.5f) * 600, elo = 1000 + 2500 * u(rng), target = (i % 2) ? 0.0f : u(rng) * 0.9f;
    float bias = (u(rng) - 0.5f) * 0.5f;
    auto a = AccurateWDLRescaleParams(contempt, target, 0.5f, bias, 420.0f, 1.0f);
    auto s = SimplifiedWDLRescaleParams(contempt, 0.5f, elo, 420.0f, 1.0f);
    printf("contempt_params %08x %08x %08x %08x %08x %08x %08x %08x\n", bits(contempt), bits(target), bits(bias),
           bits(elo), bits(a.ratio), bits(a.diff), bits(s.ratio), bits(s.diff));
  }
}
""".replace("FUNCTIONS", functions)

with tempfile.TemporaryDirectory() as work:
    path = os.path.join(work, "arithmetic.cc")
    open(path, "w").write(program)
    flags = subprocess.run(["g++", "-march=native", "-Q", "--help=target"], capture_output=True, text=True).stdout
    if not re.search(r"-mfma\s+\[enabled\]", flags):
        sys.exit("this CPU has no FMA: lc0's build would not fuse here, so there is nothing to record")
    outputs = {}
    for name, extra in [("native", ["-march=native"]), ("plain", [])]:
        binary = os.path.join(work, name)
        subprocess.run(["g++", "-O3", *extra, "-I", os.path.join(source, "src"), path, "-o", binary], check=True)
        outputs[name] = subprocess.run([binary], capture_output=True, text=True, check=True).stdout.splitlines()
    compiler = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]

cases, differing = {}, {}
for fused, plain in zip(outputs["native"], outputs["plain"]):
    name, *words = fused.split()
    kind = "differ" if fused != plain else "same"
    kept = differing.setdefault(name, {"differ": 0, "same": 0})
    if kept[kind] < 300:
        kept[kind] += 1
        cases.setdefault(name, []).append(words)
json.dump({
    "description": (
        "lc0 909a4082's FastLog2, FastExp2, FastLogistic (utils/fastmath.h), ComputeCpuct, GetFpu, MEvaluator's "
        "utility added to Q, WDLRescale (src/search/classic/search.cc) and the contempt parameter functions "
        "(src/search/classic/params.cc), copied verbatim and compiled as lc0's build compiles them (g++ -O3 "
        "-march=native on a CPU with FMA), on seeded random inputs: inputs then results, as the hex of their bits "
        "(floats 8 digits, doubles 16). Up to 300 cases of each whose fused result differs from the same code "
        "compiled without FMA ('differing' counts them), then up to 300 where it does not. Columns: fast_log2/fast_exp2/fast_logistic: x, f(x); cpuct: "
        "cpuct, base, factor, N, result; fpu: parent WL (double), D, draw score, FPU value, visited policy, result; "
        "moves_left (slope 0.0027, cap 0.0345, factors 0, 1.6521, -0.6521): parent WL (double), parent M, child M, "
        "threshold, q, addend, addend + utility; wdl_rescale (max s 1.4): v, d, ratio, diff, sign, invert, new v, "
        "new d, mu (double); contempt_params (reference draw rate 0.5, max 420, "
        "attenuation 1): contempt, draw rate target, book exit bias, Elo, accurate ratio, accurate diff, "
        "simplified ratio, simplified diff."),
    "compiler": compiler + ", -O3 -march=native",
    "differing": {name: kept["differ"] for name, kept in differing.items()},
    "cases": cases,
}, open(out, "w"), indent=0)
