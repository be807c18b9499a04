# What fusing a residual block's pointwise work would buy on the GPU (#33 item 5), on nets shaped as Maia-1900
# (6 SE blocks of 64 filters) and the random-weight SE 20×256, fp16, channels-last, each forward pass replayed as
# a CUDA graph as Kairos runs it. Variants of the same net and heads:
#   full        the body as Kairos's torch network runs it: conv, relu, conv, squeeze-excitation, add, relu
#   no-se       without the squeeze-excitation: what a kernel fusing it into the second conv's epilogue could reach
#   convs-only  the convolutions alone (bias included): the floor under cuDNN's convolutions
#   compiled    `full` through torch.compile (Inductor fuses the pointwise work into Triton kernels; convs stay cuDNN)
# usage: python3 fusion_probe.py [cpu]   (cpu: a dry run of the script on tiny nets)
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

dry = len(sys.argv) > 1 and sys.argv[1] == 'cpu'
dev = 'cpu' if dry else 'cuda'
dtype = torch.float32 if dry else torch.float16
nets = {'tiny': (2, 16, 8)} if dry else {'maia-1900 shape (6x64, SE 32)': (6, 64, 32), 'SE 20x256 (SE 32)': (20, 256, 32)}
batches = (4, 16) if dry else (64, 256, 1024)
compile_budget_s = 30 if dry else 120
torch.backends.cudnn.benchmark = True
start = time.perf_counter()


class Block(nn.Module):
    def __init__(s, c, se, variant):
        super().__init__()
        s.variant = variant
        s.c1, s.c2 = nn.Conv2d(c, c, 3, padding=1), nn.Conv2d(c, c, 3, padding=1)
        s.f1, s.f2 = nn.Linear(c, se), nn.Linear(se, 2 * c)

    def forward(s, x):
        if s.variant == 'convs-only':
            return s.c2(s.c1(x))
        z = s.c2(F.relu(s.c1(x)))
        if s.variant == 'no-se':
            return F.relu(z + x)
        g = s.f2(F.relu(s.f1(z.mean((2, 3)))))
        a, b = g.chunk(2, 1)
        return F.relu(z * torch.sigmoid(a)[:, :, None, None] + b[:, :, None, None] + x)


class Net(nn.Module):
    def __init__(s, blocks, c, se, variant):
        super().__init__()
        s.inp = nn.Conv2d(112, c, 3, padding=1)
        s.blocks = nn.Sequential(*[Block(c, se, variant) for _ in range(blocks)])
        s.p1, s.p2 = nn.Conv2d(c, c, 3, padding=1), nn.Conv2d(c, 80, 3, padding=1)
        s.v, s.v1, s.v2 = nn.Conv2d(c, 32, 1), nn.Linear(2048, 128), nn.Linear(128, 3)
        s.register_buffer('idx', torch.randint(0, 5120, (1858,)))

    def forward(s, x):
        x = s.blocks(F.relu(s.inp(x)))
        p = s.p2(F.relu(s.p1(x))).permute(0, 2, 3, 1).reshape(x.shape[0], -1).index_select(1, s.idx)
        v = s.v2(F.relu(s.v1(F.relu(s.v(x)).permute(0, 2, 3, 1).reshape(x.shape[0], -1))))
        return p.float(), v.float().softmax(1)


def evals_per_second(forward, batch):
    """Positions a second through `forward` replayed as a CUDA graph (called eagerly in the dry run)."""
    x = torch.randn(batch, 112, 8, 8, device=dev, dtype=dtype).to(memory_format=torch.channels_last)
    with torch.no_grad():
        for _ in range(3):
            forward(x)
        if dry:
            t = time.perf_counter()
            for _ in range(3):
                forward(x)
            return 3 * batch / (time.perf_counter() - t)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                forward(x)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            forward(x)
        for _ in range(5):
            graph.replay()
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        for _ in range(30):
            graph.replay()
        end.record()
        torch.cuda.synchronize()
        return 30 * batch / (begin.elapsed_time(end) / 1000)


print(f'torch {torch.__version__}, {torch.cuda.get_device_name() if not dry else "cpu dry run"}, cudnn.benchmark on')
for name, (blocks, c, se) in nets.items():
    torch.manual_seed(1)
    full = Net(blocks, c, se, 'full').to(dev, dtype).to(memory_format=torch.channels_last).eval()
    for variant in ('full', 'no-se', 'convs-only', 'compiled'):
        if variant == 'compiled':
            model = torch.compile(full, dynamic=False)
        elif variant == 'full':
            model = full
        else:
            model = Net(blocks, c, se, variant).to(dev, dtype).to(memory_format=torch.channels_last).eval()
            model.load_state_dict(full.state_dict())
        row = []
        for batch in batches:
            if variant == 'compiled' and time.perf_counter() - start > compile_budget_s:
                row.append('skipped (time)')
                continue
            t = time.perf_counter()
            try:
                row.append(f'{evals_per_second(model, batch):,.0f}')
            except Exception as e:  # a compiled graph that cannot be captured is a finding, not the probe's end
                row.append(f'failed: {type(e).__name__}: {str(e)[:200]}')
            if variant == 'compiled':
                row[-1] += f' ({time.perf_counter() - t:.0f} s with its compile)'
        print(f'| {name} | {variant} | ' + ' | '.join(row) + ' |', flush=True)
print(f'batches {batches}; all: {time.perf_counter() - start:.0f} s')
