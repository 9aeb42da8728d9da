import io
import json
import math
import os
import re
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from gpt2 import gpt2_files
from model import (
    GPT,
    GPTConfig,
    VARIANTS,
    MixiT,
    apply_rope,
    seeded,
    unfused_names,
    universal_dim,
)
from test_train import INIT_FROM_RUN, write_safetensors

SMALL = dict(vocab_size=50, block_size=16, n_layer=2, n_head=4, n_embd=32)


def build(variant, **kw):
    cfg = {**VARIANTS[variant], **SMALL, **kw}
    # its width is the construction's (tests/test_universal.py)
    if cfg.get('universal') == 'sparse':
        cfg['n_embd'] = universal_dim(
            cfg['n_head'], cfg['n_layer'], cfg['vocab_size'] + cfg['block_size'], 4
        )
    return GPT(GPTConfig(**cfg))


def full_logits(model, idx):
    return model(idx, idx)[0]  # with targets, forward returns the logits of every position


@pytest.mark.parametrize('variant', VARIANTS)
def test_causal(variant):
    """Changing the tokens after position t never changes the logits at or before t."""
    model = build(variant, bias=True).eval()
    g = torch.Generator().manual_seed(0)
    idx = torch.randint(0, 50, (3, 16), generator=g)
    base = full_logits(model, idx)
    for t in (0, 5, 14):
        changed = idx.clone()
        changed[:, t + 1 :] = torch.randint(0, 50, (3, 15 - t), generator=g)
        assert torch.equal(full_logits(model, changed)[:, : t + 1], base[:, : t + 1])
        assert not torch.allclose(full_logits(model, changed)[:, t + 1 :], base[:, t + 1 :])


@pytest.mark.parametrize('variant', VARIANTS)
def test_shorter_sequences_and_generation(variant):
    """Any T <= block_size is the same computation as the first T positions of a longer sequence
    (MixiT: the top-left T x T block of its matrix), and generation runs past block_size."""
    model = build(variant).eval()
    idx = torch.randint(0, 50, (2, 16), generator=torch.Generator().manual_seed(1))
    full = full_logits(model, idx)
    for T in (1, 7):
        torch.testing.assert_close(
            full_logits(model, idx[:, :T]), full[:, :T], rtol=1e-5, atol=1e-5
        )
    out = model.generate(idx[:, :3], max_new_tokens=20, top_k=5)
    assert out.shape == (2, 23) and torch.equal(out[:, :3], idx[:, :3])


def test_table4_parameter_counts():
    """Seed Table 4: trainable parameters at the memorization setting."""
    expected = dict(standard=790400, frozen_mlp=394880, frozen_qk=724352, mixit=724736)
    for variant, count in expected.items():
        cfg = GPTConfig(
            **VARIANTS[variant],
            vocab_size=1024,
            block_size=3,
            n_layer=2,
            n_head=4,
            n_embd=128,
            bias=True,
        )
        model = GPT(cfg)
        assert sum(p.numel() for p in model.parameters() if p.requires_grad) == count, variant


def test_random_variant_trains_only_embeddings():
    model = build('random')
    trained = {n for n, p in model.named_parameters() if p.requires_grad}
    assert trained == {'wte.weight', 'wpe.weight', 'lm_head.weight'}


@pytest.mark.parametrize(
    'variant', ['frozen_qk', 'frozen_mlp', 'mixit', 'random', 'identity_query']
)
def test_frozen_weights_unchanged_by_training(variant):
    """Frozen weights are bit-identical after AdamW steps with weight decay; trained ones move."""
    model = build(variant, bias=True)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    buffers = {n: b.clone() for n, b in model.named_buffers()}
    opt = model.configure_optimizers(0.1, 1e-2, (0.9, 0.95), 'cpu')
    idx = torch.randint(0, 50, (4, 16), generator=torch.Generator().manual_seed(2))
    for _ in range(3):
        _, loss = model(idx, idx.roll(-1, 1))
        loss.backward()
        opt.step()
        opt.zero_grad()
    frozen = [n for n, p in model.named_parameters() if not p.requires_grad]
    if variant != 'mixit' and variant != 'identity_query':
        assert frozen
    for n, p in model.named_parameters():
        if p.requires_grad:
            assert not torch.equal(p, before[n]), f'{n} did not train'
        else:
            assert torch.equal(p, before[n]) and p.grad is None, f'{n} changed'
    for n, b in model.named_buffers():
        assert torch.equal(b, buffers[n])
    optimized = {id(p) for g in opt.param_groups for p in g['params']}
    assert all(id(p) not in optimized for p in model.parameters() if not p.requires_grad)


def test_frozen_qk_freezes_exactly_q_k_weights_and_biases():
    """W_Q and W_K are one frozen linear (qk_proj), W_V its own trained one; standard's one qkv_proj
    is trained."""
    model = build('frozen_qk', bias=True)
    frozen = {n for n, p in model.named_parameters() if not p.requires_grad}
    assert frozen == {f'h.{i}.attn.qk_proj.{t}' for i in range(2) for t in ('weight', 'bias')}
    # weight, bias; 2 layers
    assert sum(p.requires_grad for n, p in model.named_parameters() if '.v_proj.' in n) == 4
    assert all(p.requires_grad for p in build('standard', bias=True).parameters())


@pytest.mark.parametrize('variant', ['standard', 'frozen_qk', 'identity_query'])
def test_fused_projections_draw_and_compute_as_apart(variant):
    """A fused projection draws each of W_Q, W_K, W_V from the generator of its unfused name
    (model.unfused_names), so its initial values are bit for bit those of three linears, and the
    same in every variant (standard's qkv_proj, frozen_qk's qk_proj + v_proj, identity_query's
    kv_proj); with the same weights, the attention's output is the one of three separate projections
    (reference_attention applies each part on its own)."""
    model, n = build(variant, bias=True), 32
    attn = model.h[1].attn

    def rows(a):
        return {
            x: lin.weight[i * n : (i + 1) * n]
            for g, lin in projections(a).items()
            for i, x in enumerate(g)
        }

    for x, weight in rows(attn).items():
        assert torch.equal(
            weight, torch.randn(n, n, generator=seeded(0, f'h.1.attn.{x}_proj.weight')) * 0.02
        ), x
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel())))
    x = torch.randn(2, 16, n, generator=torch.Generator().manual_seed(4))
    rope = (model.rope_cos, model.rope_sin)
    torch.testing.assert_close(
        attn(x, rope), reference_attention(attn, x, rope, variant == 'identity_query')
    )


def test_frozen_flags_compose():
    """The frozen_* flags combine with each other and with the architecture: W_Q = I plus frozen_qk
    freezes W_K alone; frozen_qk plus frozen_mlp freezes both sets; tied embeddings stay trained
    under frozen_blocks (they are the LM head)."""

    def frozen(model):
        return {n for n, p in model.named_parameters() if not p.requires_grad}

    assert frozen(build('identity_query', frozen_qk=True)) == {
        f'h.{i}.attn.k_proj.weight' for i in range(2)
    }
    both = frozen(build('frozen_qk', frozen_mlp=True))
    assert both == frozen(build('frozen_qk')) | frozen(build('frozen_mlp')) and frozen(
        build('frozen_mlp')
    )
    tied = build('random', tie_embeddings=True)
    assert {n for n, p in tied.named_parameters() if p.requires_grad} == {
        'wte.weight',
        'wpe.weight',
    }
    assert frozen(tied) == {n for n, _ in tied.named_parameters()} - {'wte.weight', 'wpe.weight'}


def test_same_seed_same_weights_shared_across_variants():
    """Weights are a function of (seed, name): the same seed rebuilds the same model; frozen_qk
    starts from exactly the standard model's weights; another seed gives other weights."""

    def by_unfused_name(model):
        # every parameter, a fused q, k, v split into the parts it draws by name
        return {
            part: t
            for name, p in model.named_parameters()
            for part, t in zip(unfused_names(name), p.chunk(len(unfused_names(name))))
        }

    a, b, c = (
        by_unfused_name(m)
        for m in (build('standard'), build('frozen_qk'), build('standard', seed=1))
    )
    assert a.keys() == b.keys() == c.keys()
    for n, p in a.items():
        assert torch.equal(p, b[n])
        if p.dim() == 2:
            assert not torch.equal(p, c[n])


def test_mixit_matrix_rows_sum_to_one_and_causal():
    std = torch.tensor([0.3, 0.1, 0.5])
    A = MixiT.matrix(12, std, generator=torch.Generator().manual_seed(0))
    assert A.shape == (3, 12, 12)
    torch.testing.assert_close(A.sum(-1), torch.ones(3, 12), rtol=0, atol=1e-6)
    assert torch.all(A.triu(1) == 0)
    # Eq. 2.3 entry by entry: A_ij = delta_ij + M_ij - mean_{k<=i} M_ik for j <= i, head h's M with
    # std[h]
    M = torch.randn(3, 12, 12, generator=torch.Generator().manual_seed(0)) * std.view(3, 1, 1)
    for i in range(12):
        for j in range(i + 1):
            ref = (i == j) + M[:, i, j] - M[:, i, : i + 1].mean(-1)
            torch.testing.assert_close(A[:, i, j], ref, rtol=0, atol=1e-6)
    for T in (1, 5):  # the top-left block is itself a valid mixing matrix
        torch.testing.assert_close(A[:, :T, :T].sum(-1), torch.ones(3, T), rtol=0, atol=1e-6)


def test_mixit_sink_is_the_authors_head_zero():
    """Head 0 is their sink_matrix: 0.5 I, then column 0 set to 0.5; the other heads are untouched.
    Rows 1.. sum to one (half on the token, half on the first token); row 0 is (0.5, 0, ...), as
    their assignment makes it."""
    std = torch.tensor([0.3, 0.1, 0.5])
    plain = MixiT.matrix(12, std, generator=torch.Generator().manual_seed(0))
    sink = MixiT.matrix(12, std, generator=torch.Generator().manual_seed(0), sink=True)
    ref = 0.5 * torch.eye(12)
    ref[:, 0] = 0.5
    assert torch.equal(sink[0], ref) and torch.equal(sink[1:], plain[1:])
    torch.testing.assert_close(sink[:, 1:].sum(-1), torch.ones(3, 11), rtol=0, atol=1e-6)
    assert sink[0, 0].sum() == 0.5
    ref16 = 0.5 * torch.eye(16)
    ref16[:, 0] = 0.5
    assert torch.equal(build('mixit').h[1].attn.mix[0], ref16)  # in every layer, by default
    assert not torch.equal(
        build('mixit', mixit_sink=False).h[1].attn.mix[0][:, 0], torch.full((16,), 0.5)
    )


def test_mixit_bidirectional_matrix_is_the_authors_formula():
    """causal=False (their classifier): A = I + M - (sum_j M_ij) / (i + 1) over all m columns, as
    their code."""
    std = torch.tensor([0.3, 0.2])
    A = MixiT.matrix(6, std, generator=torch.Generator().manual_seed(1), causal=False)
    M = torch.randn(2, 6, 6, generator=torch.Generator().manual_seed(1)) * std.view(2, 1, 1)
    for i in range(6):
        for j in range(6):
            torch.testing.assert_close(
                A[:, i, j], (i == j) + M[:, i, j] - M[:, i].sum(-1) / (i + 1)
            )
    assert (A[:, ~torch.ones(6, 6).tril().bool()] != 0).all()  # above the diagonal too
    model = build('mixit', causal=False)
    with pytest.raises(ValueError, match='exactly block_size'):
        model(torch.zeros(1, 9, dtype=torch.long))
    idx = torch.randint(0, 50, (1, 16), generator=torch.Generator().manual_seed(0))
    changed = idx.clone()
    changed[0, -1] = (idx[0, -1] + 1) % 50
    # sees the future
    assert not torch.allclose(full_logits(model, idx)[0, 0], full_logits(model, changed)[0, 0])


def test_mixit_per_head_std_range_and_checkpoint_round_trip():
    """Each head's std is uniform in [1/sqrt(m head_dim), 1/sqrt(m)] (their Llama path), drawn from
    (seed, layer), and the matrix's off-diagonal entries have about that std; mixit_std fixes one
    std for all heads."""
    m, hd = 16, 8
    low, high = 1 / math.sqrt(m * hd), 1 / math.sqrt(m)
    stds = torch.cat(
        [
            build('mixit', seed=s, n_head=32, n_embd=256, mixit_sink=False).h[0].attn.std
            for s in range(4)
        ]
    )
    hd = 256 // 32
    low, high = 1 / math.sqrt(m * hd), 1 / math.sqrt(m)
    assert low <= stds.min() and stds.max() <= high
    # fills the range
    assert stds.min() < low + 0.1 * (high - low) and stds.max() > high - 0.1 * (high - low)
    model = build('mixit', n_head=32, n_embd=256, mixit_sink=False)
    for h in (0, 7):
        M = (model.h[0].attn.mix[h] - torch.eye(m)).tril(-1)
        assert 0.7 < M[M != 0].std() / model.h[0].attn.std[h] < 1.3
    fixed = build('mixit', mixit_std=0.05).h[0].attn.std
    assert torch.equal(fixed, torch.full((4,), 0.05))
    model = build('mixit')
    assert not torch.equal(model.h[0].attn.mix, model.h[1].attn.mix)
    # same seed, same matrices
    assert torch.equal(build('mixit').h[1].attn.mix, model.h[1].attn.mix)
    assert not torch.equal(build('mixit', seed=3).h[1].attn.mix, model.h[1].attn.mix)
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    other = build('mixit', seed=3)
    other.load_state_dict(torch.load(buf))
    assert torch.equal(other.h[1].attn.mix, model.h[1].attn.mix)
    assert torch.equal(other.h[1].attn.std, model.h[1].attn.std)


def test_mixit_block_options_against_their_formulas():
    """The authors' MixiT block, option by option, against the formula written out."""
    x = torch.randn(2, 16, 32, generator=torch.Generator().manual_seed(0))
    # the gate: gain * LeakyReLU(slope) with slope 1 + c/sqrt(n), gain = sqrt(2 / (1 + slope^2))
    mlp = build('mixit', shaped_gate=-1.0).h[0].mlp
    slope = 1 - 1 / math.sqrt(32)
    gain = math.sqrt(2 / (1 + slope**2))
    g = mlp.gate_proj(x)
    ref = mlp.down_proj(gain * torch.where(g > 0, g, slope * g) * mlp.up_proj(x))
    torch.testing.assert_close(mlp(x), ref)
    # residual scaling: s x + sqrt(1 - s^2) f(x) around both sublayers
    block = build('mixit', skip_scaling=0.6).h[0]
    h = 0.6 * x + 0.8 * block.attn(block.norm1(x))
    torch.testing.assert_close(block(x), 0.6 * h + 0.8 * block.mlp(block.norm2(h)))
    # width multipliers: every linear's output times sqrt(base / fan_in); down_proj's base is 1
    wide, plain = build('mixit', base_width=512, bias=True), build('mixit', bias=True)
    for name in (
        'h.0.attn.v_proj',
        'h.0.attn.o_proj',
        'h.1.mlp.gate_proj',
        'h.1.mlp.up_proj',
        'lm_head',
    ):
        a, b = wide.get_submodule(name), plain.get_submodule(name)
        torch.testing.assert_close(a(x), math.sqrt(512 / 32) * b(x))
    a, b = wide.get_submodule('h.0.mlp.down_proj'), plain.get_submodule('h.0.mlp.down_proj')
    u = torch.randn(2, 16, 128)
    torch.testing.assert_close(a(u), b(u) / math.sqrt(128))
    # base = fan_in (n = 32): no multiply by 1 on the hot path; down_proj alone keeps its 1/sqrt(4n)
    same = build('mixit', base_width=32, bias=True)
    assert {
        n
        for n, m in same.named_modules()
        if isinstance(m, torch.nn.Linear) and type(m) is not torch.nn.Linear
    } == {f'h.{i}.mlp.down_proj' for i in range(2)}
    for name in ('h.0.attn.v_proj', 'h.1.mlp.up_proj', 'lm_head'):
        torch.testing.assert_close(
            same.get_submodule(name)(x), plain.get_submodule(name)(x), rtol=0, atol=0
        )
    # init: scaled_init=False draws o_proj and down_proj with std 0.02 like every other weight
    for flag, std in ((True, 0.02 / math.sqrt(4)), (False, 0.02)):
        w = build('mixit', n_embd=256, n_head=4, scaled_init=flag).h[0].mlp.down_proj.weight
        assert abs(w.std().item() / std - 1) < 0.05


def test_classifier_head():
    """n_classes > 0: the head has one output per class, and the loss is read at the scored
    positions only."""
    model = build('standard', n_classes=2, causal=False)
    idx = torch.randint(0, 50, (3, 16), generator=torch.Generator().manual_seed(0))
    y = torch.full((3, 16), -1)
    y[:, -1] = torch.tensor([0, 1, 1])
    logits, loss = model(idx, y)
    assert logits.shape == (3, 16, 2)
    torch.testing.assert_close(loss, F.cross_entropy(logits[:, -1], y[:, -1]))
    with pytest.raises(ValueError, match='tie_embeddings'):
        build('standard', n_classes=2, tie_embeddings=True)


def projections(attn):
    """{letters: linear} of an Attention's projections of q, k, v (qkv_proj; qk_proj, v_proj; ...),
    found by their names."""
    return {
        m[1]: lin
        for name, lin in attn.named_children()
        if (m := re.fullmatch('([qkv]+)_proj', name))
    }


def apart(attn, x):
    """q, k, v (B, T, C) each from its own slice of the weights (W_Q = I: q = x): three projections,
    as unfused."""
    C, out = x.size(-1), {'q': x} if attn.identity_query else {}
    for g, lin in projections(attn).items():
        for i, t in enumerate(g):
            rows = slice(i * C, (i + 1) * C)
            out[t] = F.linear(x, lin.weight[rows], None if lin.bias is None else lin.bias[rows])
    return out['q'], out['k'], out['v']


def reference_attention(attn, x, rope=None, identity_query=False, causal=True):
    """Causal (or bidirectional) multi-head softmax attention written out with explicit loops over
    heads."""
    B, T, C = x.shape
    H, hd = attn.n_head, attn.head_dim
    q, k, v = apart(attn, x)
    assert identity_query == attn.identity_query
    outs = []
    for h in range(H):
        qh, kh, vh = (t[..., h * hd : (h + 1) * hd] for t in (q, k, v))
        if rope is not None:
            qh, kh = apply_rope(qh, *rope), apply_rope(kh, *rope)
        scores = qh @ kh.transpose(-1, -2) * attn.scale
        if causal:
            scores = scores.masked_fill(torch.ones(T, T).triu(1).bool(), float('-inf'))
        outs.append(F.softmax(scores, -1) @ vh)
    return attn.o_proj(torch.cat(outs, -1))


@pytest.mark.parametrize('variant', ['standard', 'identity_query'])
def test_attention_against_reference(variant):
    model = build(variant, bias=True).double()
    attn = model.h[0].attn
    x = torch.randn(2, 16, 32, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    rope = (model.rope_cos.double(), model.rope_sin.double())
    torch.testing.assert_close(
        attn(x, rope), reference_attention(attn, x, rope, variant == 'identity_query')
    )


def test_identity_query_has_no_query_projection():
    iq, std = build('identity_query'), build('standard')
    assert not any('q_proj' in n for n, _ in iq.named_parameters())

    def attn_params(m):
        return sum(p.numel() for n, p in m.named_parameters() if '.attn.' in n)

    assert attn_params(iq) == attn_params(std) * 3 // 4
    assert iq.h[0].attn.scale == pytest.approx(1 / (2 * math.sqrt(8)))
    assert std.h[0].attn.scale == pytest.approx(1 / math.sqrt(8))


def classifier_args(variant, **given):
    """train.py's GPTConfig of a classify=True run of `variant` (the authors' Yelp classifier): a
    task of 50 tokens with 2 classes, examples of 16 tokens, token 0 the end of text (the separator
    and the padding, meta's sep)."""
    from configurator import model_args_of, resolve

    cfg = resolve(
        dict(
            task='dyck',
            variant=variant,
            classify=True,
            n_layer=2,
            n_head=4,
            n_embd=32,
            bias=True,
            **given,
        )
    )
    return model_args_of(cfg, dict(vocab_size=50, classes=[7, 8], sep=0), 16)


@pytest.mark.parametrize(
    'variant', ['standard', 'frozen_qk', 'frozen_mlp', 'identity_query', 'mixit']
)
def test_classifier_attention_as_the_authors_code_ran(variant):
    """classify=True: softmax attention stays causal, as the authors' classifier ran
    (trainer_classifier.py passes is_causal=False, which the SDPA path of transformers 4.50-4.52
    never reads); MixiT mixes both ways. causal=False given: softmax bidirectional too
    (transformers 4.53's reading).

    Checked by the logits (changing the tokens after position t changes the logits at t only in a
    bidirectional model) and by block 0's attention against the formula:
    softmax(mask(q k^T * scale)) v per head, mask causal or none; MixiT y_i = sum_j A_ij v_j over
    every j."""
    g = torch.Generator().manual_seed(7)
    idx = torch.randint(1, 50, (3, 16), generator=g)
    later = idx.clone()
    later[:, 9:] = torch.randint(1, 50, (3, 7), generator=g)
    y = torch.zeros_like(idx)  # every position scored: the head's logits everywhere
    mixit = variant == 'mixit'
    for given, bidirectional in (({}, mixit), ({'causal': False}, True)):
        args = classifier_args(variant, **given)
        assert args['causal'] is not bidirectional and args['n_classes'] == 2
        model = GPT(GPTConfig(**args)).double().eval()
        with torch.no_grad():
            base, changed = model(idx, y)[0], model(later, y)[0]
        assert torch.allclose(changed[:, :9], base[:, :9], rtol=0, atol=1e-12) is not bidirectional
        assert not torch.allclose(changed[:, 9:], base[:, 9:])
        attn = model.h[0].attn
        x = torch.randn(2, 16, 32, dtype=torch.float64, generator=g)
        if mixit:
            v, hd = attn.v_proj(x), 8
            ref = torch.zeros_like(v)
            for h in range(4):
                for i in range(16):
                    for j in range(16):
                        ref[:, i, h * hd : (h + 1) * hd] += (
                            attn.mix[h, i, j] * v[:, j, h * hd : (h + 1) * hd]
                        )
            torch.testing.assert_close(attn(x), attn.o_proj(ref))
            upper = torch.triu_indices(16, 16, 1)
            assert attn.mix[1:, upper[0], upper[1]].ne(0).all(), (
                'every head but the sink mixes later positions'
            )
        else:
            rope = (model.rope_cos.double(), model.rope_sin.double())
            torch.testing.assert_close(
                attn(x, rope),
                reference_attention(
                    attn, x, rope, variant == 'identity_query', causal=not bidirectional
                ),
            )


def test_classifier_padding_row_zero_and_untrained():
    """classify=True: the end-of-text token (meta's sep: the padding and the separator) is
    pad_token, whose embedding row is zero at init and gets no gradient, so that AdamW (weight decay
    included) leaves it exactly zero, as the authors' nn.Embedding(padding_idx=pad_token_id) with
    pad_token = eos_token; every other row used trains. pad_token=-1 given: the row is drawn and
    trained like any other (the repository's earlier classifier)."""
    # reviews, then padding
    idx = torch.tensor([[5, 6, 9] + [0] * 13, [3, 4, 5, 6, 7, 8, 9, 11] + [0] * 8])
    y = torch.full_like(idx, -1)
    y[0, 3], y[1, 8] = 1, 0  # the separators
    for variant in ('standard', 'mixit'):
        for given, padded in (({}, True), ({'pad_token': -1}, False)):
            args = classifier_args(variant, **given)
            assert args['pad_token'] == (0 if padded else -1)
            model = GPT(GPTConfig(**args))
            w = model.wte.weight
            before = w.detach().clone()
            assert before[1:].norm(dim=1).gt(0).all() and bool(before[0].eq(0).all()) is padded
            opt = model.configure_optimizers(0.1, 1e-2, (0.9, 0.999), 'cpu')
            model(idx, y)[1].backward()
            assert bool(w.grad[0].eq(0).all()) is padded and w.grad[[3, 5, 9]].ne(0).any(1).all()
            opt.step()
            assert torch.equal(w[0], before[0]) is padded and bool(w[0].eq(0).all()) is padded
            assert w[[3, 5, 9]].ne(before[[3, 5, 9]]).any(1).all() and torch.equal(
                w[20:], before[20:] * (1 - 1e-3)
            )
    assert build('standard').wte.padding_idx is None, 'language models train every row'
    with pytest.raises(ValueError, match='pad_token=50 must be a token id below vocab_size=50'):
        build('standard', pad_token=50)
    with pytest.raises(ValueError, match='tie_embeddings=False or pad_token=-1'):
        build('standard', pad_token=0, tie_embeddings=True)


def test_mixit_attention_against_reference():
    """Each head mixes its own head_dim slice of V with its own fixed matrix:
    y_i = sum_j A_ij v_j."""
    model = build('mixit', bias=True).double()
    attn = model.h[0].attn
    x = torch.randn(2, 9, 32, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    v, A, hd = attn.v_proj(x), attn.mix, 8
    ref = torch.zeros_like(v)
    for h in range(4):
        for i in range(9):
            for j in range(i + 1):
                ref[:, i, h * hd : (h + 1) * hd] += A[h, i, j] * v[:, j, h * hd : (h + 1) * hd]
    torch.testing.assert_close(attn(x), attn.o_proj(ref))
    assert not hasattr(attn, 'q_proj') and not hasattr(attn, 'k_proj')


def test_flops_count_what_each_variant_does():
    """Freezing a weight removes exactly its weight-gradient matmul (2 FLOPs per weight per token).
    Softmax attention costs 6 matmuls (QK^T, AV; dQ, dK, dV, dP) of 2 FLOPs per head dimension and
    computed query-key pair; the causal kernels compute only the pairs j <= i, bidirectional ones
    all of them.
    MixiT has no W_Q, W_K and instead of the scores one dense (T, T) matmul and its value
    gradient."""
    base, n, T, L = build('standard'), 32, 16, 2
    # W_Q, W_K rows
    qk = sum(p.numel() * 2 // 3 for name, p in base.named_parameters() if 'qkv_proj.w' in name)
    mlp = sum(
        p.numel()
        for name, p in base.named_parameters()
        if '.mlp.' in name and name.endswith('weight')
    )
    linears = sum(
        6 * p.numel() for name, p in base.named_parameters() if 'proj' in name or 'lm_head' in name
    )
    causal_pairs = sum(1 for i in range(T) for j in range(T) if j <= i)  # per head and sequence
    attention = L * 6 * 2 * n * causal_pairs / T  # per token
    assert base.flops_per_token() == pytest.approx(linears + attention)
    assert build('standard', causal=False).flops_per_token() == pytest.approx(
        linears + L * 6 * 2 * n * T
    )
    assert base.flops_per_token() - build('frozen_qk').flops_per_token() == 2 * qk
    assert base.flops_per_token() - build('frozen_mlp').flops_per_token() == 2 * mlp
    assert build('mixit').flops_per_token() == pytest.approx(linears - 6 * qk + L * 2 * 2 * n * T)
    mfu = base.estimate_mfu(fwdbwd_per_iter=10, dt=1.0, peak_flops=1e12)
    assert mfu == pytest.approx(base.flops_per_token() * T * 10 / 1e12)


def test_bad_configs_say_what_to_do():
    with pytest.raises(ValueError, match='block_size'):
        build('standard')(torch.zeros(1, 17, dtype=torch.long))
    with pytest.raises(ValueError, match="pos='learned'"):
        GPT(GPTConfig(**SMALL, mixing='mixit'))
    with pytest.raises(ValueError, match='multiple of n_head'):
        GPT(GPTConfig(**{**SMALL, 'n_head': 5}))
    with pytest.raises(ValueError, match='norm'):
        GPT(GPTConfig(**SMALL, norm='batchnorm'))


def test_gpt2_flavour_and_bare_pieces():
    """LayerNorm + GELU + learned positions + tied embeddings; and attention-only without norm or
    residual."""
    gpt2 = GPT(
        GPTConfig(
            **SMALL, norm='layernorm', mlp='gelu', pos='learned', tie_embeddings=True, bias=True
        )
    )
    assert gpt2.lm_head.weight is gpt2.wte.weight
    assert isinstance(gpt2.h[0].norm1, torch.nn.LayerNorm) and not hasattr(
        gpt2.h[0].mlp, 'gate_proj'
    )
    assert gpt2.lm_head.bias is None
    bare = GPT(GPTConfig(**SMALL, norm='none', mlp='none', residual=False, pos='none'))
    assert not hasattr(bare.h[0], 'mlp') and not any(
        'norm' in n for n, _ in bare.named_parameters()
    )
    idx = torch.randint(0, 50, (2, 16))
    for m in (gpt2, bare):
        assert torch.isfinite(m(idx, idx)[1])


# --- speed: what the compiled training step and the frozen parts cost


@pytest.mark.parametrize('variant', VARIANTS)
def test_compiles_without_graph_breaks(variant):
    """torch.compile traces every variant's forward and loss as one graph (train.py compiles the
    model on CUDA; a graph break would split it and run the gap eagerly). Dynamo's tracing needs no
    GPU or compiler. Checked in training mode with dropout and biases, and under bf16 autocast with
    the fixed matrices cast (fixed_to)."""
    torch._dynamo.reset()
    extra = {} if VARIANTS[variant].get('universal') else dict(dropout=0.1, bias=True)
    model = build(variant, **extra).train()
    idx = torch.randint(0, 50, (2, 16), generator=torch.Generator().manual_seed(0))
    explained = torch._dynamo.explain(model)(idx, idx)
    assert explained.graph_break_count == 0, explained.break_reasons
    model.fixed_to(torch.bfloat16)
    with torch.autocast('cpu', dtype=torch.bfloat16):
        explained = torch._dynamo.explain(model)(idx, idx)
    assert explained.graph_count == 1 and explained.graph_break_count == 0, explained.break_reasons


@pytest.mark.parametrize('variant', ['mixit', 'universal_random'])
def test_fixed_matrices_cast_once_compute_the_same(variant):
    """fixed_to(bf16) casts every buffer once (parameters stay float32); under autocast the logits
    are exactly those of the uncast model, whose matmuls cast the same float32 matrices to bf16 at
    every step; and a checkpoint of the cast model rebuilds it exactly."""
    model, cast = build(variant), build(variant).fixed_to(torch.bfloat16)
    assert all(b.dtype == torch.bfloat16 for b in cast.buffers()) and any(
        True for _ in cast.buffers()
    )
    assert all(p.dtype == torch.float32 for p in cast.parameters())
    idx = torch.randint(0, 50, (3, 16), generator=torch.Generator().manual_seed(5))
    with torch.autocast('cpu', dtype=torch.bfloat16):
        assert torch.equal(cast(idx, idx)[0], model(idx, idx)[0])
    rebuilt = build(variant, seed=9)
    rebuilt.load_state_dict(cast.state_dict())
    rebuilt.fixed_to(torch.bfloat16)
    assert all(torch.equal(a, b) for a, b in zip(rebuilt.buffers(), cast.buffers()))


def test_mixit_backward_keeps_no_copy_of_the_matrix_per_example():
    """MixiT applies each head's (T, T) matrix to the whole batch's values in one bmm, so what
    autograd keeps for the backward pass grows with the batch by activations (B * T * n), never by a
    copy of the matrices per example (B * n_head * T * T, what broadcasting (nh, T, T) @
    (B, nh, T, hd) would keep)."""
    n_head, T, n = 4, 64, 8

    def saved_bytes(B):
        model = build('mixit', n_layer=1, n_head=n_head, block_size=T, n_embd=n)
        seen = {}

        def pack(t):
            seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            model.h[0].attn(torch.randn(B, T, n))
        return sum(seen.values())

    per_example = (saved_bytes(16) - saved_bytes(8)) / 8
    assert per_example < n_head * T * T * 4 / 4  # the matrices alone would be 64 KiB per example


# ---------------------------------------- --init_from: GPT-2's files that are not what they claim

ROOT = Path(__file__).resolve().parents[1]
GPT2_CONFIG = dict(
    n_layer=1,
    n_head=1,
    n_embd=4,
    vocab_size=8,
    n_positions=8,
    model_type='gpt2',
    activation_function='gelu_new',
    n_inner=None,
    layer_norm_epsilon=1e-5,
)


def gpt2_folder(folder, **changed):
    """A valid folder of GPT-2's files (config.json, model.safetensors; over what is there), a few
    of its tensors (`changed` replaces some), written by tests/test_train.py's write_safetensors:
    wte's bytes are 0 to 128, wpe's 128 to 256, ln_f.bias's 256 to 272."""
    g = torch.Generator().manual_seed(0)
    tensors = {
        'transformer.wte.weight': torch.randn(8, 4, generator=g),
        'transformer.wpe.weight': torch.randn(8, 4, generator=g),
        'transformer.ln_f.bias': torch.randn(4, generator=g),
        **changed,
    }
    folder.mkdir(exist_ok=True)
    (folder / 'config.json').write_text(json.dumps(GPT2_CONFIG))
    write_safetensors(folder / 'model.safetensors', tensors)
    return tensors


def config(**changed):
    def setup(folder):
        (folder / 'config.json').write_text(json.dumps({**GPT2_CONFIG, **changed}))

    return setup


def header(edit):
    """model.safetensors with edit(its header dict) applied, the same data."""

    def setup(folder):
        path = folder / 'model.safetensors'
        b = path.read_bytes()
        n = int.from_bytes(b[:8], 'little')
        h = json.loads(b[8 : 8 + n])
        edit(h)
        head = json.dumps(h).encode()
        path.write_bytes(len(head).to_bytes(8, 'little') + head + b[8 + n :])

    return setup


def tensor(name, **changed):
    return header(lambda h: h[f'transformer.{name}'].update(changed))


def file(name, data=None, fifo=False, link=None):
    """name replaced by a FIFO, a link, or torch.save's `data`; a pytorch_model.bin takes
    model.safetensors' place (gpt2_files reads the .bin where there is no .safetensors)."""

    def setup(folder):
        (folder / name).unlink(missing_ok=True)
        if name == 'pytorch_model.bin':
            (folder / 'model.safetensors').unlink()
        if fifo:
            os.mkfifo(folder / name)
        elif link:
            os.symlink(link, folder / name)
        else:
            torch.save(data, folder / name)

    return setup


def replace(name, f):
    def setup(folder):
        (folder / name).write_bytes(f((folder / name).read_bytes()))

    return setup


# the library's error, named in gpt2.py's one line, and what to do
SAFETENSORS, AGAIN = r'model\.safetensors \(SafetensorError: .*', r'.*\): fetch it again$'
CASES = [
    # model.safetensors against its specification: refused by the safetensors library, in one line
    (
        'header length 2^64 - 1',
        replace('model.safetensors', lambda b: (2**64 - 1).to_bytes(8, 'little') + b[8:]),
        SAFETENSORS + 'header too large' + AGAIN,
    ),
    (
        'header longer than the file',
        replace('model.safetensors', lambda b: len(b).to_bytes(8, 'little') + b[8:]),
        SAFETENSORS + 'invalid header length' + AGAIN,
    ),
    (
        'unknown dtype',
        tensor('ln_f.bias', dtype='F8_E9'),
        SAFETENSORS + 'unknown variant `F8_E9`' + AGAIN,
    ),
    (
        'shape not integers',
        tensor('ln_f.bias', shape=['4']),
        SAFETENSORS + 'invalid type: string "4"' + AGAIN,
    ),
    (
        'offsets outside the file',
        tensor('ln_f.bias', data_offsets=[1000, 1016]),
        SAFETENSORS + r'invalid offset for tensor `transformer\.ln_f\.bias`' + AGAIN,
    ),
    (
        'byte range shorter than the shape',
        tensor('ln_f.bias', data_offsets=[256, 268]),
        SAFETENSORS + 'invalid shape, data type, or offset for tensor' + AGAIN,
    ),
    (
        'overlapping tensors',
        tensor('wpe.weight', data_offsets=[0, 128]),
        # either of the two: the library's order of equal offsets varies from run to run
        SAFETENSORS + r'invalid offset for tensor `transformer\.w(pe|te)\.weight`' + AGAIN,
    ),
    (
        'bytes that are no tensor',
        replace('model.safetensors', lambda b: b + b'polyglot'),
        SAFETENSORS + 'incomplete metadata, file not fully covered' + AGAIN,
    ),
    (
        'a NaN weight',
        lambda folder: gpt2_folder(
            folder, **{'transformer.ln_f.bias': torch.tensor([1.0, float('nan'), 3.0, 4.0])}
        ),
        'model.safetensors holds transformer.ln_f.bias with 1 NaN or infinite values',
    ),
    # config.json: types, and settings this GPT-2 does not build
    ('n_layer true', config(n_layer=True), 'has n_layer=true, not a positive integer'),
    ('n_embd a string', config(n_embd='4'), 'has n_embd="4", not a positive integer'),
    ('n_head a float', config(n_head=1.0), r'has n_head=1\.0, not a positive integer'),
    (
        'untied head',
        config(tie_word_embeddings=False),
        r'sets tie_word_embeddings=false, which this GPT-2 does not build \(only true\)',
    ),
    ('relu', config(activation_function='relu'), 'sets activation_function="relu"'),
    ('unscaled attention', config(scale_attn_weights=False), 'sets scale_attn_weights=false'),
    (
        'attention scaled by layer',
        config(scale_attn_by_inverse_layer_idx=True),
        'sets scale_attn_by_inverse_layer_idx=true',
    ),
    (
        'reordered attention',
        config(reorder_and_upcast_attn=True),
        'sets reorder_and_upcast_attn=true',
    ),
    ('another model', config(model_type='llama'), 'sets model_type="llama"'),
    # pytorch_model.bin: a {name: tensor} dict, finite
    ('bin a list', file('pytorch_model.bin', [torch.zeros(2)]), r'\.bin holds a list, not'),
    (
        'bin int keys',
        file('pytorch_model.bin', {1: torch.zeros(2)}),
        r'\.bin holds 1 \(Tensor\), not a tensor named by a string',
    ),
    (
        'bin a string value',
        file('pytorch_model.bin', {'transformer.wte.weight': 'x'}),
        r"\.bin holds 'transformer.wte.weight' \(str\), not a tensor named by a string",
    ),
    (
        'bin an inf weight',
        file('pytorch_model.bin', {'transformer.wte.weight': torch.tensor([float('inf')])}),
        r'\.bin holds transformer.wte.weight with 1 NaN or infinite values',
    ),
    # files that would block or never end
    ('config.json a FIFO', file('config.json', fifo=True), r'config\.json \(not a regular file'),
    (
        'model.safetensors a link to /dev/zero',
        file('model.safetensors', link='/dev/zero'),
        r'model\.safetensors \(not a regular file',
    ),
    (
        'pytorch_model.bin a FIFO',
        file('pytorch_model.bin', fifo=True),
        r'pytorch_model\.bin \(not a regular file',
    ),
]


@contextmanager
def deadline(seconds):
    """A call blocked past `seconds` (a FIFO's read) fails the test instead of hanging it; not by
    an OSError (TimeoutError is one), which the code under test may catch and go on."""

    def expire(signum, frame):
        pytest.fail(f'blocked for {seconds} s')

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize('setup, message', [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_gpt2_files_refuse_what_is_not_gpt2(tmp_path, setup, message):
    """gpt2_files, what train.py's --init_from and gpt2.from_pretrained read GPT-2 with, refuses in
    one line naming the file: the valid folder loads, the changed one does not."""
    folder = tmp_path / 'gpt2'
    tensors = gpt2_folder(folder)
    assert torch.equal(gpt2_files(folder)[1]['wte.weight'], tensors['transformer.wte.weight'])
    setup(folder)
    with deadline(10), pytest.raises(ValueError) as e:
        gpt2_files(folder)
    assert str(folder) in str(e.value) and '\n' not in str(e.value)
    assert re.search(message, str(e.value)), str(e.value)


@pytest.mark.parametrize('case', ['config.json a FIFO', 'overlapping tensors'])
def test_init_from_refuses_what_is_not_gpt2_in_one_line(tmp_path, case):
    """The same through train.py's command line: exit code 2, one line 'error: ...', nothing
    written, the files left as they were."""
    setup, message = {c[0]: c[1:] for c in CASES}[case]
    gpt2_folder(tmp_path / 'gpt2')
    setup(tmp_path / 'gpt2')
    before = sorted(os.listdir(tmp_path / 'gpt2'))
    argv = dict(
        INIT_FROM_RUN,
        out_dir=tmp_path / 'out',
        data_dir=tmp_path / 'data',
        init_from=tmp_path / 'gpt2',
    )
    r = subprocess.run(
        [sys.executable, 'train.py', *(f'--{k}={v}' for k, v in argv.items())],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and r.stderr.startswith('error: ') and r.stderr.count('\n') == 1, (
        r.stderr
    )
    assert re.search(message, r.stderr), r.stderr
    assert not (tmp_path / 'out').exists() and sorted(os.listdir(tmp_path / 'gpt2')) == before
