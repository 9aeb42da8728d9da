"""
Theorem 2.1 of "Is Random Attention Sufficient?" (MixiT covariance SDE): at initialization, the
covariance Phi = h^T h / n of the m token representations of the MixiT recursion converges, as width
n and depth d = tau * n grow together, to the solution of the SDE (2.4); an unshaped random mixing
collapses the rank. A theorem: no table of numbers to reproduce.

The recursion, exactly as the theorem states it (Eq. 2.3 and Appendix A, A.4): attention only (no
residual, no norm, no MLP, no causal mask, one head), h is n x m (features x tokens) and
    h_{l+1} = W^v_l h_l A_l,   W^v_l iid N(0, 1/n) (n x n),
    A_l = I + (W^M_l - colmean(W^M_l)) / sqrt(n m),
with W^M_l iid N(0, 1) (m x m) and a fresh draw every layer; the columns of A_l sum to one (token j
of the next layer is sum_i h_i A_ij). Start: Phi_0 = (1 - rho0) I + rho0 11^T exactly
(h_0 = sqrt(n) Q chol(Phi_0)^T, Q with orthonormal columns), m = 4 tokens, rho0 = 0.5, tau = 1.
In the orientation of model.py (row i = output token i), A_l^T is I + M - rowmean(M), which is
model.MixiT.matrix without its causal mask. MixiT.matrix itself is causal, so it is simulated beside
the theorem as "shaped, causal (model.MixiT.matrix)", for which the theorem as stated does not
apply.

The SDE (2.4), by Euler-Maruyama on the m(m+1)/2 upper-triangular entries:
- drift (Tr(Phi)/m - M(Phi)) on the diagonal entries only (the delta_{gamma delta} of A.6; A.7's
  "I_n" is I_m);
- diffusion [Sigma^v + Sigma^M]^(1/2), Sigma^v and Sigma^M the closed forms (2.4)-(2.5), the square
  root by eigendecomposition;
- a step that leaves the PSD cone is projected back onto it (the share is reported).

Rank collapse: the same recursion with unshaped mixing, (a) softmax of fixed random N(0, 1) scores
(a row-stochastic matrix, what softmax attention with random, input-independent scores gives),
(b) a plain N(0, 1/m) random matrix (the paper's "simplest case" before shaping).

Claims: CLAIMS below, judged by claims.judge. What the quick protocol tests: as n grows, the mean
and spread of Phi and rho over seeds approach the SDE's (KS distance falling towards its sampling
floor); the shaped mixing keeps the tokens' correlation away from one at depth d = n, while the
unshaped mixings drive it to one (rank collapse).
Metrics, over many random seeds:
- mean and standard deviation of Phi_11 (a diagonal entry), Phi_12 (an off-diagonal one) and the
  correlation rho_12 = Phi_12 / sqrt(Phi_11 Phi_22) at tau;
- the two-sample Kolmogorov-Smirnov distance between the seeds' values and the SDE paths' values;
- rank collapse: the mean off-diagonal correlation (for (b) its absolute value) at depth tau * n;
  1 = all tokens parallel, rank one.

Settings, each from one place: PROTOCOL below. All follow the paper's text (Theorem 2.1, Eq. 2.3
with one std 1/sqrt(n m) and no sink head: the authors' code's per-head std and sink, which the
MixiT experiments follow, are not what the theorem states); the widths, seeds, SDE paths and step
are ours. The collapse comparison runs at the largest width.

| mode | widths n (depth = n) | seeds a width | SDE paths, dt | collapse |
|---|---|---|---|---|
| full | 16, 32, 64, 128, 256 | 2,000 | 4,000, 1/1024 | width 256, 500 seeds |
| --quick | 16, 32, 64, 128 | 1,000 | 4,000, 1/512 | width 128, 200 seeds |
| --smoke | 8 | 16 | 64, 1/64 | width 8, 8 seeds |
"""

import math
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from experiments.harness import common
from model import MixiT

NAME = 'covariance_sde'
M_TOKENS, RHO0, TAU = 4, 0.5, 1.0
# widths n (depth = tau n), seeds per width, SDE paths and step, seeds of the collapse comparison
PROTOCOL = {
    'full': dict(
        widths=[16, 32, 64, 128, 256], seeds=2000, paths=4000, dt=1 / 1024, collapse_seeds=500
    ),
    'quick': dict(widths=[16, 32, 64, 128], seeds=1000, paths=4000, dt=1 / 512, collapse_seeds=200),
    'smoke': dict(widths=[8], seeds=16, paths=64, dt=1 / 64, collapse_seeds=8),
}
SHAPED, SOFTMAX, GAUSSIAN = (
    'shaped, Eq. 2.3 (theorem)',
    'unshaped: softmax(N(0,1) scores)',
    'unshaped: N(0, 1/m) matrix (absolute corr)',
)  # no '|': the labels go into markdown
# q, n; mixing
KS_LABEL, CORR_LABEL = ('KS distance to SDE: {}, n = {}', 'mean off-diagonal corr at depth n: {}')

# The theorem's claims, each value one number (a distribution over all seeds). Why these tests:
# convergence to the SDE (2.4), at the largest width: each KS distance below what two samples of one
# law exceed by chance 1% of the time, 1.63 sqrt(1/seeds + 1/paths) (1%: three distances at once, so
# chance alone fails the claim ~3% of the time); rank collapse: the mean token correlation (0.5 at
# first) at depth n below (shaped) or above (unshaped) 0.95, near rank one.
CLAIMS = {
    mode: [
        dict(
            says="the MixiT recursion's covariance converges to the SDE (2.4) (Theorem 2.1)",
            test='below',
            bound=1.63 * math.sqrt(1 / p['seeds'] + 1 / p['paths']),
            fmt='num',
            of=[KS_LABEL.format(q, p['widths'][-1]) for q in ('Phi_11', 'Phi_12', 'rho_12')],
        ),
        dict(
            says="the shaped mixing keeps the tokens' correlation away from one (no rank collapse)",
            test='below',
            bound=0.95,
            fmt='num',
            of=[CORR_LABEL.format(SHAPED)],
        ),
        dict(
            says='an unshaped random mixing collapses the rank (correlation to one)',
            test='above',
            bound=0.95,
            fmt='num',
            of=[CORR_LABEL.format(SOFTMAX), CORR_LABEL.format(GAUSSIAN)],
        ),
    ]
    for mode, p in PROTOCOL.items()
}


def phi0(m=M_TOKENS, rho=RHO0):
    return (1 - rho) * torch.eye(m, dtype=torch.float64) + rho * torch.ones(
        m, m, dtype=torch.float64
    )


def correlation(phi):
    d = phi.diagonal(dim1=-2, dim2=-1).clamp_min(1e-300).sqrt()
    return phi / (d[..., :, None] * d[..., None, :])


def mixing(kind, S, n, m, gen):
    """(S, m, m) mixing matrices in model.py's orientation: output token i = sum_j A_ij h_j."""
    if kind == 'shaped':  # Eq. 2.3 / A.4 as the theorem states it: no causal mask
        M = torch.randn(S, m, m, generator=gen, dtype=torch.float64)
        return torch.eye(m, dtype=torch.float64) + (M - M.mean(-1, keepdim=True)) / math.sqrt(n * m)
    # the matrix model.py's MixiT uses (S matrices = S "heads"), std 1/sqrt(n m)
    if kind == 'causal':
        return MixiT.matrix(m, torch.full((S,), 1 / math.sqrt(n * m)), gen).double()
    if kind == 'softmax':  # unshaped: softmax of fixed random scores, row-stochastic
        return torch.softmax(torch.randn(S, m, m, generator=gen, dtype=torch.float64), -1)
    if kind == 'gaussian':  # unshaped: plain N(0, 1/m) matrix
        return torch.randn(S, m, m, generator=gen, dtype=torch.float64) / math.sqrt(m)
    raise ValueError(kind)


def simulate(kind, n, depth, S, seed, record, chunk=250):
    """The recursion h <- W^v h A^T over `depth` layers for S seeds; -> {layer: Phi (S, m, m)} at
    `record`. h is rescaled per seed after every layer for the unshaped mixings only (their norms
    drift; correlations do not care)."""
    m, out, gen = M_TOKENS, {}, torch.Generator().manual_seed(seed)
    q, _ = torch.linalg.qr(torch.randn(n, m, generator=gen, dtype=torch.float64))
    h0 = math.sqrt(n) * q @ torch.linalg.cholesky(phi0()).T  # (n, m): h0^T h0 / n = Phi_0 exactly
    for start in range(0, S, chunk):
        s = min(chunk, S - start)
        h = h0.expand(s, n, m).clone()
        for layer in range(depth + 1):
            if layer in record:
                out.setdefault(layer, []).append(h.transpose(1, 2) @ h / n)
            if layer == depth:
                break
            wv = torch.randn(s, n, n, generator=gen, dtype=torch.float64) / math.sqrt(n)
            h = wv @ h @ mixing(kind, s, n, m, gen).transpose(1, 2)
            if kind in ('softmax', 'gaussian'):
                h = h / h.flatten(1).norm(dim=1)[:, None, None] * math.sqrt(n * m)
    return {k: torch.cat(v) for k, v in out.items()}


def sde_sigma(phi):
    """Sigma^v + Sigma^M of (2.4)-(2.5) on the upper-triangular entries: (P, p, p), p = m(m+1)/2."""
    m = phi.shape[-1]
    a, b = torch.triu_indices(m, m)
    # row index (alpha beta), column (gamma delta)
    A, B, G, D = (a[:, None], b[:, None], a[None, :], b[None, :])
    col_mean = phi.mean(-2)  # (P, m)
    C = phi @ phi / m - col_mean[:, :, None] * col_mean[:, None, :]  # C(Phi^.b, Phi^.d)
    sig_v = phi[:, A, G] * phi[:, B, D] + phi[:, A, D] * phi[:, B, G]
    sig_m = (
        (A == G) * C[:, B, D]
        + (A == D) * C[:, B, G]
        + (G == B) * C[:, D, A]
        + (B == D) * C[:, A, G]
    )  # deltas
    return sig_v + sig_m


def simulate_sde(paths, dt, tau, seed, record_taus):
    """Euler-Maruyama for (2.4) from Phi_0; -> {tau: Phi (paths, m, m)} at the recorded times."""
    m, gen = M_TOKENS, torch.Generator().manual_seed(seed)
    a, b = torch.triu_indices(m, m)
    phi = phi0().expand(paths, m, m).clone()
    steps, record = round(tau / dt), {round(t / dt): t for t in record_taus}
    out, projected = {}, 0
    for k in range(steps + 1):
        if k in record:
            out[record[k]] = phi.clone()
        if k == steps:
            break
        evals, evecs = torch.linalg.eigh(sde_sigma(phi))
        root = evecs * evals.clamp_min(0).sqrt()[:, None, :]
        noise = root @ torch.randn(paths, len(a), 1, generator=gen, dtype=torch.float64)
        inc = torch.zeros_like(phi)
        inc[:, a, b] = noise[..., 0] * math.sqrt(dt)
        inc = inc + inc.transpose(1, 2) - torch.diag_embed(inc.diagonal(dim1=1, dim2=2))
        drift = phi.diagonal(dim1=1, dim2=2).mean(-1) - phi.mean((1, 2))  # Tr(Phi)/m - M(Phi)
        phi = phi + inc + drift[:, None, None] * torch.eye(m, dtype=phi.dtype) * dt
        # an Euler step can leave the PSD cone: project back onto it
        evals, evecs = torch.linalg.eigh(phi)
        outside = evals.min(-1).values < 0
        projected += int(outside.sum())
        phi[outside] = (evecs[outside] * evals[outside].clamp_min(0)[:, None, :]) @ evecs[
            outside
        ].transpose(1, 2)
    out['projected'] = projected / (paths * steps)
    return out


def ks(x, y):  # the two-sample Kolmogorov-Smirnov statistic
    # grid: every sample point, any order
    x, y, grid = (np.sort(x), np.sort(y), np.concatenate([x, y]))
    return float(
        np.abs(
            np.searchsorted(x, grid, 'right') / len(x) - np.searchsorted(y, grid, 'right') / len(y)
        ).max()
    )


def quantities(phi):
    return {'Phi_11': phi[:, 0, 0], 'Phi_12': phi[:, 0, 1], 'rho_12': correlation(phi)[:, 0, 1]}


def mean_offdiag_corr(phi, absolute=False):
    r, m = correlation(phi), phi.shape[-1]
    return (((r.abs() if absolute else r).sum((1, 2)) - m) / (m * (m - 1))).mean().item()


def plot(taus, chains, sde, collapse, n_collapse):
    """Three panels, each legend below its panel's axis label, over no data."""
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from matplotlib.transforms import offset_copy

    fig, (ax0, ax1, ax2) = plt.subplots(1, 3, figsize=(16, 6.0), layout='constrained')
    colors = plt.cm.viridis(np.linspace(0, 0.85, len(chains)))
    for q, style in (('Phi_11', '-'), ('Phi_12', '--')):
        mean = np.array([quantities(sde[t])[q].mean().item() for t in taus])
        sd = np.array([quantities(sde[t])[q].std().item() for t in taus])
        ax0.fill_between(taus, mean - sd, mean + sd, color='gray', alpha=0.25)
        ax0.plot(taus, mean, 'k' + style, lw=2, label=f'SDE {q} (mean, band = sd)')
        for c, (n, rec) in zip(colors, chains.items()):
            ax0.errorbar(
                taus,
                [quantities(rec[t])[q].mean().item() for t in taus],
                yerr=[quantities(rec[t])[q].std().item() for t in taus],
                color=c,
                ls=style,
                lw=1,
                capsize=2,
                label=f'n = d = {n}: seeds, mean +- sd' if q == 'Phi_11' else None,
            )
    ax0.set(
        xlabel='tau = layer / n',
        ylabel='covariance entry Phi = h^T h / n',
        title='shaped MixiT: mean +- sd over seeds vs SDE (2.4)',
    )
    bins = np.linspace(-1, 1, 41)
    ax1.hist(
        quantities(sde[taus[-1]])['rho_12'].numpy(),
        bins=bins,
        density=True,
        color='gray',
        alpha=0.5,
        label='SDE (2.4)',
    )
    for c, (n, rec) in zip(colors, chains.items()):
        ax1.hist(
            quantities(rec[taus[-1]])['rho_12'].numpy(),
            bins=bins,
            density=True,
            histtype='step',
            color=c,
            lw=1.5,
            label=f'n = d = {n}',
        )
    ax1.set(
        xlabel=f'correlation rho_12 at tau = {taus[-1]:g}',
        ylabel='probability density (per unit of rho_12)',
        title=f'correlation of two tokens at tau = {taus[-1]:g}',
    )
    for label, (t, values) in collapse.items():
        ax2.plot(t, values, label=label)
    ax2.set(
        xlabel='tau = layer / n',
        ylabel='mean off-diagonal correlation',
        ylim=(-0.05, 1.05),
        title=f'rank collapse, width {n_collapse}',
    )
    # below the tick labels and the axis label (about 34 pt), never over the data
    for ax, ncol, title in (
        (ax0, 2, 'solid: Phi_11, dashed: Phi_12'),
        (ax1, 3, None),
        (ax2, 1, None),
    ):
        ax.legend(
            loc='upper center',
            bbox_to_anchor=(0.5, 0),
            bbox_transform=offset_copy(ax.transAxes, fig=fig, y=-34, units='points'),
            ncol=ncol,
            fontsize=8,
            title=title,
            title_fontsize=8,
            frameon=False,
        )
    return fig


def main():
    args = common.parse_args(__doc__)
    # in PROTOCOL's key order
    widths, seeds, paths, dt, collapse_seeds = PROTOCOL[args.mode].values()
    torch.set_num_threads(min(2, torch.get_num_threads()))
    grid = 16 if min(widths) >= 16 else min(widths)
    taus = [TAU * k / grid for k in range(grid + 1)]
    sde = simulate_sde(paths, dt, TAU, seed=1, record_taus=taus)
    end = quantities(sde[TAU])
    rows, chains, measured = [], {}, {}
    for n in widths:
        depth = round(TAU * n)
        rec = simulate(
            'shaped', n, depth, seeds, seed=1000 + n, record={round(t * n) for t in taus}
        )
        chains[n] = {t: rec[round(t * n)] for t in taus}
        for q, values in quantities(rec[depth]).items():
            # one number: all seeds' law
            measured[KS_LABEL.format(q, n)] = [ks(values.numpy(), end[q].numpy())]
            rows.append(
                {
                    'mixing': SHAPED,
                    'width n': n,
                    'depth d': depth,
                    'quantity': q,
                    'ours: mean +- sd over seeds': f'{values.mean():.3f} +- {values.std():.3f}',
                    'paper: SDE (2.4) mean +- sd': f'{end[q].mean():.3f} +- {end[q].std():.3f}',
                    'KS distance to SDE': f'{measured[KS_LABEL.format(q, n)][0]:.3f}',
                }
            )
    n, depth = widths[-1], round(TAU * widths[-1])
    collapse, layers = {}, sorted({round(t * n) for t in taus} | {1, 2, 4})
    for kind, label, paper in (
        ('shaped', SHAPED, f'{mean_offdiag_corr(sde[TAU]):.3f} (SDE (2.4))'),
        ('causal', 'shaped, causal (MixiT.matrix)', 'no collapse (theorem: non-causal)'),
        ('softmax', SOFTMAX, 'rank collapse (-> 1)'),
        ('gaussian', GAUSSIAN, 'rank collapse (-> 1)'),
    ):
        rec = simulate(kind, n, depth, collapse_seeds, seed=7, record=set(layers))
        values = [mean_offdiag_corr(rec[layer], absolute=kind == 'gaussian') for layer in layers]
        collapse[label] = ([layer / n for layer in layers], values)
        measured[CORR_LABEL.format(label)] = [values[-1]]
        rows.append(
            {
                'mixing': label,
                'width n': n,
                'depth d': depth,
                'quantity': 'mean off-diagonal corr',
                'ours: mean +- sd over seeds': f'{values[-1]:.3f} (layer 0: {values[0]:.3f}, '
                f'layer 4: {values[layers.index(4)]:.3f})',
                'paper: SDE (2.4) mean +- sd': paper,
                'KS distance to SDE': '',
            }
        )
    collapse['SDE (2.4)'] = (taus, [mean_offdiag_corr(sde[t]) for t in taus])
    pngs = common.save_figure(args, NAME, plot(taus, chains, sde, collapse, n), dpi=110)
    floor = 1.36 * math.sqrt(1 / seeds + 1 / paths)
    notes = (
        f'm = {M_TOKENS} tokens, Phi_0 = {1 - RHO0:g} I + {RHO0:g} 11^T, tau = {TAU:g} (depth = '
        f'width); {seeds:,} seeds per width; SDE: {paths:,} Euler-Maruyama paths, dt = {dt:g} (a '
        f'step that left the PSD cone was projected back onto it: {100 * sde["projected"]:.3f}% of '
        'the path-steps). KS: two-sample Kolmogorov-Smirnov distance between the seeds and the SDE '
        f'paths at tau; at these sample sizes about {floor:.3f} is reached by chance 5% of the '
        f'time (the sampling floor). Collapse rows: {collapse_seeds} seeds at width {n}, depth '
        f'{depth}; "corr" is the mean over token pairs of Phi_ij / sqrt(Phi_ii Phi_jj). Plot: '
        f'{", ".join(str(p) for p in pngs)}.'
    )
    common.report(
        args,
        NAME,
        'Theorem 2.1: MixiT covariance at initialization vs the SDE (2.4)',
        list(rows[0]),
        rows,
        notes=notes,
        values=measured,
        claims=CLAIMS[args.mode],
    )


if __name__ == '__main__':
    main()
