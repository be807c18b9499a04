# Where a Maia-sized forward pass on CUDA spends its time: host->device copy, kernels, device->host copy.
import time, torch, torch.nn as nn, torch.nn.functional as F
dev = 'cuda'
class Block(nn.Module):
    def __init__(s, c=64, se=8):
        super().__init__(); s.c1=nn.Conv2d(c,c,3,padding=1); s.c2=nn.Conv2d(c,c,3,padding=1); s.f1=nn.Linear(c,se); s.f2=nn.Linear(se,2*c)
    def forward(s,x):
        y=F.relu(s.c1(x)); z=s.c2(y); g=s.f2(F.relu(s.f1(z.mean((2,3))))); a,b=g.chunk(2,1)
        return F.relu(z*torch.sigmoid(a)[:,:,None,None]+b[:,:,None,None]+x)
class Net(nn.Module):
    def __init__(s):
        super().__init__(); s.inp=nn.Conv2d(112,64,3,padding=1); s.blocks=nn.Sequential(*[Block() for _ in range(6)])
        s.p1=nn.Conv2d(64,64,3,padding=1); s.p2=nn.Conv2d(64,80,3,padding=1); s.v=nn.Conv2d(64,32,1); s.v1=nn.Linear(2048,128); s.v2=nn.Linear(128,3)
        s.register_buffer('idx', torch.randint(0,5120,(1858,)))
    def forward(s,x):
        x=s.blocks(F.relu(s.inp(x))); p=s.p2(F.relu(s.p1(x))).reshape(x.shape[0],-1).index_select(1,s.idx)
        v=s.v2(F.relu(s.v1(F.relu(s.v(x)).reshape(x.shape[0],-1)))); return p,v
def timeit(f, n=50):
    for _ in range(5): f()
    torch.cuda.synchronize(); t=time.perf_counter()
    for _ in range(n): f()
    torch.cuda.synchronize(); return (time.perf_counter()-t)/n*1e3
for dtype in (torch.float32, torch.float16):
    net=Net().to(dev).to(dtype).eval()
    for B in (1, 32, 256, 1024):
        host=torch.rand(B,112,8,8); pinned=host.pin_memory(); gx=host.to(dev).to(dtype)
        with torch.no_grad():
            h2d=timeit(lambda: host.to(dev)); h2dp=timeit(lambda: pinned.to(dev,non_blocking=True))
            fw=timeit(lambda: net(gx))
            p,v=net(gx); d2h=timeit(lambda: (p.float().cpu(), v.float().cpu()))
            full=timeit(lambda: [t.float().cpu() for t in net(host.to(dev).to(dtype))])
            masks=torch.randint(-2**62,2**62,(B,112,1),dtype=torch.int64); bits=(1<<torch.arange(64,dtype=torch.int64)).to(dev)
            vals=torch.rand(B,112,1)
            compact=timeit(lambda: [t.float().cpu() for t in net(((masks.to(dev)&bits)!=0).to(dtype).mul(vals.to(dev).to(dtype)).reshape(B,112,8,8))])
            g=torch.cuda.CUDAGraph(); static=gx.clone()
            s=torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3): net(static)
            torch.cuda.current_stream().wait_stream(s)
            with torch.cuda.graph(g): out=net(static)
            graph=timeit(lambda: (g.replay(), [t.float().cpu() for t in out]))
        print(f"{str(dtype):14} B={B:5}  h2d pageable {h2d:6.3f} ms  pinned {h2dp:6.3f}  forward {fw:6.3f}  d2h {d2h:6.3f}  full {full:6.3f} ({B/full*1e3:8.0f}/s)  compact-input full {compact:6.3f} ({B/compact*1e3:8.0f}/s)  cuda-graph+d2h {graph:6.3f} ({B/graph*1e3:8.0f}/s)", flush=True)
