# What PyTorch (the libtorch that Kairos runs) reaches on a 20×256 SE net in fp16 on CUDA, beside lc0 cuda's
# 131k evaluations/s at batch 1024: eager in NCHW and channels-last, with cuDNN's autotuner, and as a CUDA graph;
# the forward pass alone and with the compact input (112 bit masks and values) and the outputs' copies.
# usage: python3 torch_probe_se.py [cpu]   (cpu: a dry run of the script, tiny)
import sys, time, torch, torch.nn as nn, torch.nn.functional as F

dev = sys.argv[1] if len(sys.argv) > 1 else 'cuda'
dtype = torch.float16 if dev == 'cuda' else torch.float32
blocks, channels = (20, 256) if dev == 'cuda' else (2, 32)
batches = (1, 8, 64, 256, 1024) if dev == 'cuda' else (1, 4)


class Block(nn.Module):
    def __init__(s, c, se):
        super().__init__()
        s.c1, s.c2 = nn.Conv2d(c, c, 3, padding=1), nn.Conv2d(c, c, 3, padding=1)
        s.f1, s.f2 = nn.Linear(c, se), nn.Linear(se, 2 * c)

    def forward(s, x):
        y = F.relu(s.c1(x))
        z = s.c2(y)
        g = s.f2(F.relu(s.f1(z.mean((2, 3)))))
        a, b = g.chunk(2, 1)
        return F.relu(z * torch.sigmoid(a)[:, :, None, None] + b[:, :, None, None] + x)


class Net(nn.Module):
    def __init__(s, c, n):
        super().__init__()
        s.inp = nn.Conv2d(112, c, 3, padding=1)
        s.blocks = nn.Sequential(*[Block(c, c // 8) for _ in range(n)])
        s.p1, s.p2 = nn.Conv2d(c, c, 3, padding=1), nn.Conv2d(c, 80, 3, padding=1)
        s.v, s.v1, s.v2 = nn.Conv2d(c, 32, 1), nn.Linear(2048, 128), nn.Linear(128, 3)
        s.m, s.m1, s.m2 = nn.Conv2d(c, 8, 1), nn.Linear(512, 128), nn.Linear(128, 1)
        s.register_buffer('idx', torch.randint(0, 5120, (1858,)))

    def forward(s, x):
        x = s.blocks(F.relu(s.inp(x)))
        p = s.p2(F.relu(s.p1(x))).reshape(x.shape[0], -1).index_select(1, s.idx)
        v = s.v2(F.relu(s.v1(F.relu(s.v(x)).reshape(x.shape[0], -1))))
        m = s.m2(F.relu(s.m1(F.relu(s.m(x)).reshape(x.shape[0], -1))))
        return p, v, m


def timeit(f, n=30):
    for _ in range(3):
        f()
    if dev == 'cuda':
        torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        f()
    if dev == 'cuda':
        torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e3


def graphed(net, static):
    """The forward pass captured as a CUDA graph on `static`; returns a function that replays it."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            net(static)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = net(static)
    return lambda: (g.replay(), out)[1]


torch.manual_seed(0)
with torch.no_grad():
    for layout in ('nchw', 'channels_last'):
        for autotune in (False, True):
            torch.backends.cudnn.benchmark = autotune
            net = Net(channels, blocks).to(dev).to(dtype).eval()
            if layout == 'channels_last':
                net = net.to(memory_format=torch.channels_last)
            for B in batches:
                x = torch.rand(B, 112, 8, 8, device=dev).to(dtype)
                if layout == 'channels_last':
                    x = x.contiguous(memory_format=torch.channels_last)
                eager = timeit(lambda: net(x))
                masks = torch.randint(-2**62, 2**62, (B, 112, 1), dtype=torch.int64)
                vals = torch.rand(B, 112, 1)
                if dev == 'cuda':
                    masks, vals = masks.pin_memory(), vals.pin_memory()
                bits = (1 << torch.arange(64, dtype=torch.int64)).to(dev)

                def full():
                    planes = ((masks.to(dev, non_blocking=True) & bits) != 0).to(dtype)
                    planes = planes.mul(vals.to(dev, non_blocking=True).to(dtype)).reshape(B, 112, 8, 8)
                    return [t.float().cpu() for t in net(planes)]
                whole = timeit(full)
                row = (f"{layout:13} autotune={int(autotune)} B={B:5}  forward {eager:7.3f} ms ({B / eager * 1e3:9.0f}/s)"
                       f"  with input and outputs {whole:7.3f} ms ({B / whole * 1e3:9.0f}/s)")
                if dev == 'cuda':
                    replay = graphed(net, x.clone())
                    graph = timeit(replay)
                    row += f"  cuda graph {graph:7.3f} ms ({B / graph * 1e3:9.0f}/s)"
                print(row, flush=True)
