"""
The universal backbones of model.py (fixed-universal-transformers): the sparse construction
simulates random targets of T(H, L, d, k) exactly through its embedding alone, unrolled and looped,
causal and not; its width is the formula's; only the embeddings and the unembedding are trained.
"""

import math

import pytest
import torch

from model import GPT, GPTConfig, VARIANTS, universal_dim, universal_embedding

SHAPES = [(1, 1), (1, 3), (2, 2), (3, 2), (2, 3)]  # (H, L)


def random_target(H, L, d, k, dtype, seed):
    g = torch.Generator().manual_seed(seed)

    def draw(*shape):
        return (torch.randn(shape, generator=g) / math.sqrt(shape[0])).to(dtype)

    return [[(draw(d, k), draw(d, k), draw(d, d)) for _ in range(H)] for _ in range(L)]


def target_forward(target, X, causal):
    """X_l = sum_h softmax(mask(X Q K^T X^T / sqrt(k))) X V, head by head, position by position."""
    m = X.shape[0]
    for layer in target:
        out = torch.zeros_like(X)
        for Q, K, V in layer:
            scores = (X @ Q) @ (X @ K).T / math.sqrt(Q.shape[1])
            for i in range(m):
                seen = i + 1 if causal else m
                out[i] += torch.softmax(scores[i, :seen], 0) @ (X[:seen] @ V)
        X = out
    return X


def universal_forward(H, L, d, k, E, U, X, causal, looped, dtype):
    D = universal_dim(H, L, d, k, looped)
    model = GPT(
        GPTConfig(
            **VARIANTS['universal_sparse'],
            n_head=H,
            n_layer=L,
            n_embd=D,
            universal_d=d,
            universal_k=k,
            looped=looped,
            causal=causal,
            vocab_size=3,
            block_size=X.shape[0],
        )
    ).to(dtype)
    Z = X @ E
    for block in model.h:
        Z = block(Z[None])[0]
    return Z @ U


@pytest.mark.parametrize('H, L', SHAPES)
@pytest.mark.parametrize('causal', [True, False])
@pytest.mark.parametrize('looped', [False, True])
@pytest.mark.parametrize('dtype, tol', [(torch.float64, 1e-9), (torch.float32, 1e-5)])
def test_sparse_construction_is_exact(H, L, causal, looped, dtype, tol):
    d, k, m = 5, 3, 7
    target = random_target(H, L, d, k, dtype, seed=10 * H + L)
    X = torch.randn(m, d, generator=torch.Generator().manual_seed(H + L), dtype=torch.float64).to(
        dtype
    )
    E, U = universal_embedding(target, H, L, d, k, looped)
    nodes = sum(H**j for j in range(L))
    D = (2 * H * k + d) * (nodes + H**L) if looped else 2 * H * k * nodes + d * H**L
    assert E.shape == (d, D) and U.shape == (D, d)
    want = target_forward(target, X, causal)
    got = universal_forward(H, L, d, k, E, U, X, causal, looped, dtype)
    assert (got - want).abs().max() < tol


def test_a_different_target_needs_a_different_embedding():
    """The backbone is not trivially matching: target A's embedding does not compute target B."""
    H, L, d, k = 2, 2, 5, 3
    A, B = (random_target(H, L, d, k, torch.float64, seed) for seed in (1, 2))
    X = torch.randn(6, d, dtype=torch.float64)
    E, U = universal_embedding(A, H, L, d, k)
    got = universal_forward(H, L, d, k, E, U, X, True, False, torch.float64)
    assert (got - target_forward(A, X, True)).abs().max() < 1e-9
    assert (got - target_forward(B, X, True)).abs().max() > 1e-3


@pytest.mark.parametrize('variant', ['universal_sparse', 'universal_random'])
def test_only_embeddings_and_unembedding_train(variant):
    H, L, k, vocab, T = 2, 2, 3, 7, 6
    D = universal_dim(H, L, vocab + T, k) if variant == 'universal_sparse' else 40
    model = GPT(
        GPTConfig(
            **VARIANTS[variant],
            n_head=H,
            n_layer=L,
            n_embd=D,
            universal_k=k,
            vocab_size=vocab,
            block_size=T,
        )
    )
    trained = sorted(n for n, p in model.named_parameters() if p.requires_grad)
    assert trained == ['lm_head.weight', 'wpe.weight', 'wte.weight']
    fixed = {n: b.clone() for n, b in model.named_buffers()}
    assert fixed and all(n.endswith(('.q', '.k', '.v')) for n in fixed)
    opt = model.configure_optimizers(0.1, 1e-2, (0.9, 0.95), 'cpu')
    idx = torch.randint(0, vocab, (4, T))
    before = {n: p.clone() for n, p in model.named_parameters()}
    for _ in range(2):
        model(idx, idx)[1].backward()
        opt.step()
        opt.zero_grad()
    assert all(torch.equal(b, fixed[n]) for n, b in model.named_buffers())
    assert all(not torch.equal(p, before[n]) for n, p in model.named_parameters())


def test_random_backbone_is_seeded_and_looped_ties_layers():
    cfg = dict(
        **VARIANTS['universal_random'], n_head=2, n_layer=3, n_embd=24, vocab_size=7, block_size=6
    )
    a, b, c = GPT(GPTConfig(**cfg)), GPT(GPTConfig(**cfg)), GPT(GPTConfig(**cfg, seed=1))
    assert torch.equal(a.h[1].attn.v, b.h[1].attn.v) and not torch.equal(
        a.h[1].attn.v, c.h[1].attn.v
    )
    assert not torch.equal(a.h[0].attn.q, a.h[1].attn.q)
    looped = GPT(GPTConfig(**cfg, looped=True))
    assert all(torch.equal(looped.h[0].attn.v, blk.attn.v) for blk in looped.h)
    bound = 1 / math.sqrt(24)
    assert a.h[0].attn.v.abs().max() <= bound and a.h[0].attn.v.std() > bound / 3


def test_sparse_width_is_checked():
    with pytest.raises(ValueError, match='set n_embd=72'):
        GPT(
            GPTConfig(
                **VARIANTS['universal_sparse'],
                n_head=2,
                n_layer=2,
                n_embd=64,
                universal_k=3,
                vocab_size=5,
                block_size=4,
            )
        )
