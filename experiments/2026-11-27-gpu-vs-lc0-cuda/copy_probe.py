# What a batch's copies cost on the GPU machine, beside the pass itself (#33 item 4): Kairos's graphed forward copies
# the masks and values in (two copies from page-locked memory, each waited for), replays the graph, and copies the
# policy, value and moves-left outputs out (three copies, each waited for), then copies the policy logits once more
# into a vector on the host. Timed here with PyTorch on the same tensors' shapes, at batches 1, 64, 256 and 1024:
#   in           the two copies in, each waited for (as Kairos does now)
#   out          the three copies out, each waited for (as now), the policy in fp32
#   out-fp16     the policy copied in fp16 instead (half the bytes; the pass computes in fp16 anyway)
#   out-one      the three outputs packed on the device into one tensor and copied once
#   host-copy    the policy logits copied once more on the host, out of page-locked memory into fresh memory
# usage: python3 copy_probe.py [cpu]   (cpu: a dry run, on the host alone, of the script's shapes and arithmetic)
import sys
import time

import torch

dry = len(sys.argv) > 1 and sys.argv[1] == 'cpu'
dev = 'cpu' if dry else 'cuda'
PLANES, POLICY = 112, 1858
pin = (lambda t: t) if dry else (lambda t: t.pin_memory())


def synchronize():
    if not dry:
        torch.cuda.synchronize()


def microseconds(step, repeats=50):
    """Mean wall time of `step` over `repeats` calls, after five warm-ups."""
    for _ in range(5):
        step()
    synchronize()
    start = time.perf_counter()
    for _ in range(repeats):
        step()
    synchronize()
    return (time.perf_counter() - start) / repeats * 1e6


print(f'torch {torch.__version__}, {"cpu dry run" if dry else torch.cuda.get_device_name()}; microseconds a batch')
print('| batch | in | out | out-fp16 | out-one | host-copy |')
print('|---|---|---|---|---|---|')
for batch in (1, 64, 256, 1024):
    host_masks, host_values = pin(torch.zeros(batch, PLANES, 1, dtype=torch.int64)), pin(torch.zeros(batch, PLANES, 1))
    masks, values = torch.zeros_like(host_masks, device=dev), torch.zeros_like(host_values, device=dev)
    policy = torch.randn(batch, POLICY, device=dev)
    policy16 = policy.half()
    value, moves_left = torch.randn(batch, 3, device=dev), torch.randn(batch, 1, device=dev)
    packed = torch.cat([policy, value, moves_left], 1)
    host_policy, host_policy16 = pin(torch.zeros(batch, POLICY)), pin(torch.zeros(batch, POLICY, dtype=torch.half))
    host_value, host_moves_left, host_packed = pin(torch.zeros(batch, 3)), pin(torch.zeros(batch, 1)), pin(
        torch.zeros(batch, POLICY + 4))

    def copy_in():
        masks.copy_(host_masks)
        synchronize()
        values.copy_(host_values)
        synchronize()

    def copy_out(source_policy, target_policy):
        def step():
            for target, source in ((target_policy, source_policy), (host_value, value), (host_moves_left, moves_left)):
                target.copy_(source)
                synchronize()
        return step

    def copy_out_once():
        host_packed.copy_(packed)
        synchronize()

    def host_copy():
        host_policy.reshape(-1).clone()

    row = [microseconds(copy_in), microseconds(copy_out(policy, host_policy)),
           microseconds(copy_out(policy16, host_policy16)), microseconds(copy_out_once), microseconds(host_copy)]
    print(f'| {batch} | ' + ' | '.join(f'{t:,.0f}' for t in row) + ' |', flush=True)
