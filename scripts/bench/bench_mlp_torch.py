#!/usr/bin/env python3
"""PyTorch peer of fivsim's batched-network benchmark (scripts/bench/mlp_batch_bench.cpp): for B
networks of one layout (tanh hidden layers, linear outputs), each with its own weights, the loss
0.5 * sum_p ||net(x_p) - t_p||^2 over its P points and the gradient for its weights, in one batched
call. Written as PyTorch users would write it, in three forms, and the fastest is the peer:
  vmap     torch.func.vmap(torch.func.grad_and_value(loss)) over functional_call of one nn.Sequential
  compile  the same function through torch.compile
  bmm      hand-batched layers (torch.baddbmm over [B, out, in] weights) with autograd, replayed
           from a captured CUDA graph (no Python or launch overhead left)
Times with CUDA events: mean of `repeats` calls after warm-ups. Prints one JSON object.

With --train-steps N it times training instead (fivsim_bench_mlp --train-steps): one step = the
forward and backward pass of every network and torch.optim.Adam's step on the stacked weights (Adam
is elementwise, so that is every network's own Adam; lr 1e-3 and the defaults, as fivsim's), in
two forms: vmap (the vmap'd gradients handed to the optimizer, eager) and bmm_graph (autograd and
the optimizer's step, capturable, in one CUDA graph replayed N times); the fused optimizer where
this PyTorch has it for the dtype, else foreach. Reports seconds per step of the whole batch.

usage: bench_mlp_torch.py [--networks 10000] [--points 1] [--hidden 20x7] [--inputs 2]
                          [--outputs 10] [--repeats 200] [--precision double|float]
                          [--train-steps 0]
Runs with the python3 that holds PyTorch (on the device machines, plain python3).
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--networks", type=int, default=10000)
    ap.add_argument("--points", type=int, default=1)
    ap.add_argument("--hidden", default="20x7")
    ap.add_argument("--inputs", type=int, default=2)
    ap.add_argument("--outputs", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=200)
    ap.add_argument("--precision", choices=["double", "float"], default="double")
    ap.add_argument("--train-steps", type=int, default=0)
    a = ap.parse_args()
    import torch
    from torch.func import functional_call, grad_and_value, vmap

    if not torch.cuda.is_available():
        print(json.dumps({"error": "no CUDA device for PyTorch"}))
        return 1
    dev = torch.device("cuda")
    dtype = torch.float64 if a.precision == "double" else torch.float32
    width, depth = (int(v) for v in a.hidden.split("x"))
    B, P = a.networks, a.points
    sizes = [a.inputs] + [width] * depth + [a.outputs]
    gen = torch.Generator(device="cpu").manual_seed(7)

    # one weight set per network, Glorot-uniform like fivsim's
    Ws, bs = [], []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = (6.0 / (fan_in + fan_out)) ** 0.5
        Ws.append(((torch.rand(B, fan_out, fan_in, generator=gen, dtype=dtype) * 2 - 1) * bound).to(dev))
        bs.append((torch.rand(B, fan_out, generator=gen, dtype=dtype) * 0.02 - 0.01).to(dev))
    x = torch.rand(B, P, a.inputs, generator=gen, dtype=dtype).to(dev)
    t = torch.rand(B, P, a.outputs, generator=gen, dtype=dtype).to(dev)

    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        layers += [torch.nn.Linear(fan_in, fan_out, dtype=dtype), torch.nn.Tanh()]
    base = torch.nn.Sequential(*layers[:-1]).to(dev)
    names = [n for n, _ in base.named_parameters()]
    params = {}
    for i, n in enumerate(names):
        params[n] = Ws[i // 2] if n.endswith("weight") else bs[i // 2]

    def loss(p, xb, tb):
        y = functional_call(base, p, (xb,))
        return 0.5 * ((y - tb) ** 2).sum()

    vmapped = vmap(grad_and_value(loss))

    def bmm_loss_grad(Wl, bl, xb, tb):
        Wl = [w.detach().requires_grad_(True) for w in Wl]
        bl = [b.detach().requires_grad_(True) for b in bl]
        h = xb
        for i, (w, b) in enumerate(zip(Wl, bl)):
            h = torch.baddbmm(b.unsqueeze(1), h, w.transpose(1, 2))
            if i + 1 < len(Wl):
                h = torch.tanh(h)
        per = 0.5 * ((h - tb) ** 2).sum(dim=(1, 2))
        g = torch.autograd.grad(per.sum(), Wl + bl)
        return per.detach(), g

    def timed(fn, repeats):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(repeats):
            fn()
        stop.record()
        torch.cuda.synchronize()
        return start.elapsed_time(stop) * 1e-3 / repeats

    if a.train_steps > 0:
        return train(a, torch, dev, dtype, Ws, bs, x, t, names, vmapped, timed)

    results, errors = {}, {}
    results["vmap"] = timed(lambda: vmapped(params, x, t), a.repeats)
    try:
        compiled = torch.compile(vmapped)
        results["compile"] = timed(lambda: compiled(params, x, t), a.repeats)
    except Exception as e:  # torch.compile of vmap(grad) is not always supported
        errors["compile"] = str(e).splitlines()[0][:200]
    try:
        static = {}
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                bmm_loss_grad(Ws, bs, x, t)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static["out"] = bmm_loss_grad(Ws, bs, x, t)
        results["bmm_graph"] = timed(graph.replay, a.repeats)
    except Exception as e:
        errors["bmm_graph"] = str(e).splitlines()[0][:200]
        results["bmm"] = timed(lambda: bmm_loss_grad(Ws, bs, x, t), a.repeats)

    # the answers agree between the forms (a check that they compute the same thing)
    g_v, l_v = vmapped(params, x, t)
    l_b, _ = bmm_loss_grad(Ws, bs, x, t)
    agree = float((l_v - l_b).abs().max() / l_b.abs().max())
    best = min(results, key=results.get)
    print(json.dumps({"networks": B, "points": P, "hidden": a.hidden, "inputs": a.inputs, "outputs": a.outputs,
                      "precision": a.precision, "torch": torch.__version__, "device": torch.cuda.get_device_name(0),
                      "seconds": results, "errors": errors, "best": best, "best_s": results[best],
                      "best_networks_per_s": B / results[best], "forms_agree_rel": agree}))
    return 0


def train(a, torch, dev, dtype, Ws, bs, x, t, names, vmapped, timed):
    """Forward + backward + Adam step of every network, per step of the whole batch."""
    B, P = a.networks, a.points

    def leaves():
        return [w.detach().clone().requires_grad_(True) for w in Ws] + \
               [b.detach().clone().requires_grad_(True) for b in bs]

    def adam(params):
        # the fastest implementation this PyTorch has for the dtype: a probe step on a spare tensor
        # finds out (some versions refuse fused float64 only at the first step)
        for kw in ({"fused": True}, {"foreach": True}):
            try:
                probe = torch.zeros(4, dtype=dtype, device=dev, requires_grad=True)
                probe.grad = torch.ones_like(probe)
                torch.optim.Adam([probe], lr=1e-3, capturable=True, **kw).step()
                return torch.optim.Adam(params, lr=1e-3, capturable=True, **kw), next(iter(kw))
            except (RuntimeError, TypeError, ValueError):
                continue
        return torch.optim.Adam(params, lr=1e-3, capturable=True), "plain"

    def bmm_loss(Wl, bl):
        h = x
        for i, (w, b) in enumerate(zip(Wl, bl)):
            h = torch.baddbmm(b.unsqueeze(1), h, w.transpose(1, 2))
            if i + 1 < len(Wl):
                h = torch.tanh(h)
        return 0.5 * ((h - t) ** 2).sum()

    nl = len(Ws)
    results, errors, kinds = {}, {}, {}
    # vmap: the per-network gradients from vmap(grad), handed to the optimizer
    p_v = leaves()
    opt_v, kinds["vmap"] = adam(p_v)
    order = [p_v[i // 2] if n.endswith("weight") else p_v[nl + i // 2] for i, n in enumerate(names)]

    def vmap_step():
        g, _ = vmapped({n: p.detach() for n, p in zip(names, order)}, x, t)
        for n, p in zip(names, order):
            p.grad = g[n]
        opt_v.step()

    results["vmap"] = timed(vmap_step, a.train_steps)
    # bmm_graph: autograd and the optimizer's step captured in one CUDA graph
    try:
        p_g = leaves()
        opt_g, kinds["bmm_graph"] = adam(p_g)

        def graph_step():
            opt_g.zero_grad(set_to_none=False)
            bmm_loss(p_g[:nl], p_g[nl:]).backward()
            opt_g.step()

        for p in p_g:
            p.grad = torch.zeros_like(p)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                graph_step()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            graph_step()
        results["bmm_graph"] = timed(graph.replay, a.train_steps)
    except Exception as e:
        errors["bmm_graph"] = str(e).splitlines()[0][:200]
    best = min(results, key=results.get)
    print(json.dumps({"networks": B, "points": P, "hidden": a.hidden, "inputs": a.inputs, "outputs": a.outputs,
                      "precision": a.precision, "torch": torch.__version__, "device": torch.cuda.get_device_name(0),
                      "train_steps": a.train_steps, "optimizer": kinds, "seconds_per_step": results,
                      "errors": errors, "best": best, "best_s": results[best],
                      "best_network_steps_per_s": B / results[best]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
