"""
Appendix 8.3 of "W_K, W_V is probably all you need": can a GELU MLP with a skip connection learn the
basis-changed skip-MLP that query elimination asks of it (Eq. 9), where no exact solution is known?

Target (Eq. 10): Y(x) = W_2 GELU(W_1 x) + Z x - x, with W_1 (4h x h), W_2 (h x 4h), Z (h x h) Gaussian,
scaled by 1/sqrt(4h), 1/sqrt(4h), 1/sqrt(h) as the paper states; inputs x ~ N(0, I_h), fresh every step.
Model (Eq. 11): Y'(x) = W_2' GELU(W_1' x) + x, the same shapes, no biases, PyTorch's default init,
trained on the relative squared error |Y' - Y|^2 / |Y|^2 of the batch with AdamW (lr 5e-3, cosine decay
to 0, weight decay 0.1, gradient clipping 3.0).
Baseline: the best linear map, Y ~ x A*, by ridge regression (lambda 1e-6) accumulated over fresh samples.
Metrics on 65,536 fresh test inputs: relative L2 error |P - Y|_F / |Y|_F and the mean cosine similarity
(and distance 1 - cos) between predicted and target rows, for the MLP and for A*.
Full protocol (paper): h in {256, 512, 768}, 20,000 steps of batch 65,536, ridge on 500,000 samples; float32
(PyTorch's default; the ridge's sums in float64).
Paper (Figure 2): MLP 4-6% relative error against 11-14% for the linear map (its text says 9-10%); cosine
distance about 0.002 against above 0.009.
Settings: every full-protocol setting follows the paper's text (Appendix 8.3; no authors' code in reference.md)
except PyTorch's default init and the cosine decay's end, 0, which it does not state (ours).
--quick: h in {32, 64, 128}, 8,000 steps of batch 4,096, ridge on 200,000.
Claim it tests: the trained MLP beats the best linear map by about a factor of two in relative error.
Claims: CLAIMS below, judged by claims.judge.
"""
import math

import torch
import torch.nn.functional as F

import common

NAME = 'mlp_basis_transfer'
PROTOCOL = {  # widths h, AdamW steps and batch of the MLP, samples of the ridge regression, test inputs
    'full': dict(widths=[256, 512, 768], steps=20_000, batch=65_536, ridge_samples=500_000, test_samples=65_536),
    'quick': dict(widths=[32, 64, 128], steps=8_000, batch=4_096, ridge_samples=200_000, test_samples=65_536),
    'smoke': dict(widths=[8], steps=5, batch=256, ridge_samples=2_048, test_samples=1024)}
# The paper's Figure 2 and its text, on every width a mode runs (one run per width, one number each; the quick
# widths are smaller than the paper's, the claims the same): the MLP's relative L2 error is 4-6% (Figure 2; the
# text's 4-5% lies inside), the linear map's 9-14% (the text's 9-10% and the figure's 11-14% together), "a factor
# of 2x" between them read as a ratio that rounds to 2 or more, so above 1.5, and the linear map's cosine distance
# "remains above 0.009" (Figure 2, right).
CLAIMS = {mode: [
    dict(says='the trained skip-GELU MLP reaches 4-6% relative L2 error (Figure 2)', test='within', target=0.05,
         tol=0.01, of=[f'MLP relative L2 error, h={h}' for h in p['widths']]),
    dict(says='the best linear map A* stays at 9-14% (text 9-10%, Figure 2 11-14%)', test='within', target=0.115,
         tol=0.025, of=[f'linear A* relative L2 error, h={h}' for h in p['widths']]),
    dict(says='the MLP beats the linear map by a factor of about 2 in relative error', test='above', bound=1.5,
         fmt='num', of=[f'linear / MLP error ratio, h={h}' for h in p['widths']]),
    dict(says="the linear map's cosine distance remains above 0.009 (Figure 2)", test='above', bound=0.009,
         fmt='num', of=[f'linear cosine distance, h={h}' for h in p['widths']]),
] for mode, p in PROTOCOL.items()}


def target(h, generator):
    W1 = torch.randn(4 * h, h, generator=generator) / math.sqrt(4 * h)
    W2 = torch.randn(h, 4 * h, generator=generator) / math.sqrt(4 * h)
    Z = torch.randn(h, h, generator=generator) / math.sqrt(h)
    return lambda x: F.gelu(x @ W1.T) @ W2.T + x @ Z.T - x


def fit_mlp(f, h, steps, batch, device):
    torch.manual_seed(h)
    W1, W2 = torch.nn.Linear(h, 4 * h, bias=False).to(device), torch.nn.Linear(4 * h, h, bias=False).to(device)
    params = list(W1.parameters()) + list(W2.parameters())
    opt = torch.optim.AdamW(params, lr=5e-3, weight_decay=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    for _ in range(steps):
        x = torch.randn(batch, h, device=device)
        y = f(x)
        loss = ((W2(F.gelu(W1(x))) + x - y).pow(2).sum() / y.pow(2).sum())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 3.0)
        opt.step()
        sched.step()
    return lambda x: W2(F.gelu(W1(x))) + x


def fit_linear(f, h, samples, device, chunk=65_536):
    """Ridge regression Y ~ x A, accumulating x^T x and x^T Y over fresh samples, in float64."""
    xtx, xty = (torch.zeros(h, h, dtype=torch.float64, device=device) for _ in range(2))
    for start in range(0, samples, chunk):
        x = torch.randn(min(chunk, samples - start), h, device=device)
        y = f(x)
        xtx += x.double().T @ x.double()
        xty += x.double().T @ y.double()
    A = torch.linalg.solve(xtx + 1e-6 * torch.eye(h, dtype=torch.float64, device=device), xty).float()
    return lambda x: x @ A


def scores(predict, y, x):
    p = predict(x)
    cos = F.cosine_similarity(p, y, dim=1).mean().item()
    return ((p - y).norm() / y.norm()).item(), cos


def main():
    args = common.parse_args(__doc__)
    device = 'cuda' if args.device in ('auto', 'cuda') and torch.cuda.is_available() else \
        ('cpu' if args.device == 'auto' else args.device)
    widths, steps, batch, ridge_samples, test_samples = (
        PROTOCOL[args.mode][key] for key in ('widths', 'steps', 'batch', 'ridge_samples', 'test_samples'))
    rows, values = [], {}
    for h in widths:
        f = target(h, torch.Generator().manual_seed(h))

        def f_dev(x, f=f):  # the target's weights live on the CPU
            return f(x.cpu()).to(x.device)
        mlp = fit_mlp(f_dev, h, steps, batch, device)
        linear = fit_linear(f_dev, h, ridge_samples, device)
        torch.manual_seed(10_000 + h)
        x = torch.randn(test_samples, h, device=device)
        with torch.no_grad():
            y = f_dev(x)
            (mlp_err, mlp_cos), (lin_err, lin_cos) = scores(mlp, y, x), scores(linear, y, x)
        rows.append({'h': h, 'MLP relative L2 error': common.pct(mlp_err), 'linear A* relative L2 error':
                     common.pct(lin_err), 'ratio': f'{lin_err / mlp_err:.2f}',
                     'MLP cosine (distance)': f'{mlp_cos:.4f} ({1 - mlp_cos:.4f})',
                     'linear cosine (distance)': f'{lin_cos:.4f} ({1 - lin_cos:.4f})',
                     'paper': 'MLP 4-6%, linear 11-14%; distance ~0.002 vs > 0.009'})
        values.update({f'MLP relative L2 error, h={h}': [mlp_err], f'linear A* relative L2 error, h={h}': [lin_err],
                       f'linear / MLP error ratio, h={h}': [lin_err / mlp_err],
                       f'MLP cosine distance, h={h}': [1 - mlp_cos], f'linear cosine distance, h={h}': [1 - lin_cos]})
    notes = (f'Budget: {steps:,} AdamW steps of batch {batch:,} (fresh inputs), ridge on {ridge_samples:,} samples; '
             f'metrics on fresh test inputs; device {common.device_name(args.device)}.')
    common.report(args, NAME, 'Appendix 8.3: a skip-GELU MLP learns the basis-changed skip-MLP', list(rows[0]), rows,
                  notes=notes, values=values, claims=CLAIMS[args.mode])


if __name__ == '__main__':
    main()
