"""
The spectrum of transformers with frozen or fixed parts, in one file.

The default architecture is the papers' Llama-style decoder (seed "Attention Retrieves, MLP
Memorizes", Sec. 2): pre-RMSNorm, causal multi-head attention with RoPE on q/k, gated MLP
W_D(phi(W_G h) * W_U h) of width 4n, untied LM head. Config flags reach the GPT-2 flavour
(LayerNorm, GELU MLP, learned positions, tied embeddings) and the bare pieces (no MLP, no norm, no
residual).

VARIANTS names the models of the papers; each is a few GPTConfig flags, and each idea has one named
place (right column):
    standard          everything trained
    frozen_qk         W_Q, W_K (and their biases) kept at initialization    GPT.frozen_modules
    frozen_mlp        W_G, W_U, W_D (and their biases) kept at              GPT.frozen_modules
                      initialization
    mixit             a fixed input-independent matrix per layer and        class MixiT
                      head (Eq. 2.3)
    identity_query    W_Q = I: the query of head h is the input's h-th      class Attention
                      slice
    random            Zhong & Andreas (2024): only the embeddings and       GPT.frozen_modules
                      LM head trained
    universal_sparse  a fixed attention-only backbone that simulates        class UniversalAttention
                      any target of a class T(H, L, d, k) through its
                      embedding alone (Thm 3.1)
    universal_random  the same shapes drawn i.i.d. (Thm 3.3); only          class UniversalAttention
                      embeddings, head
Fixed matrices that are never trained (MixiT's, the universal backbones') are buffers, not
parameters.

Every weight is drawn from a generator seeded by (config.seed, parameter name), so a model is a
function of its config: frozen weights are reproducible, identical on every DDP rank, and two
variants built with the same seed share the initial values of the parameters they have in common.
"""

import itertools
import math
import re
import zlib
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn
from torch.nn import functional as F

from checks import check_config


@dataclass
class GPTConfig:
    block_size: int = 256  # longest sequence; MixiT matrices and learned positions have this size
    vocab_size: int = 256  # number of token ids
    n_layer: int = 4  # number of blocks
    n_head: int = 4  # attention heads per block
    n_embd: int = 128  # width n; head_dim = n_embd // n_head
    dropout: float = 0.0  # dropout on embeddings, attention probabilities and block outputs
    bias: bool = False  # biases on attention and MLP linears (and LayerNorm), never on the LM head
    # architecture
    norm: str = 'rmsnorm'  # 'rmsnorm' | 'layernorm' | 'none'
    mlp: str = 'gated'  # 'gated' (Eq. 2.2) | 'gelu' | 'gelu_tanh' (GPT-2's gelu_new) | 'none'
    mlp_ratio: float = 4.0  # MLP width n_m = mlp_ratio * n_embd
    pos: str = 'rope'  # 'rope' on q/k | 'learned' absolute, added to the token embedding | 'none'
    rope_base: float = 10000.0  # RoPE frequency base
    tie_embeddings: bool = False  # share the token embedding with the LM head (GPT-2)
    residual: bool = True  # skip connections around attention and MLP
    # what is trained, and how tokens are mixed
    mixing: str = 'softmax'  # 'softmax' attention | 'mixit' fixed random matrix (no W_Q, W_K)
    frozen_qk: bool = False  # keep W_Q, W_K and their biases at initialization
    frozen_mlp: bool = False  # keep every MLP weight and bias at initialization
    frozen_blocks: bool = False  # keep the blocks and final norm: only embeddings, LM head trained
    identity_query: bool = False  # W_Q = I: no query projection
    attn_scale: Optional[float] = None  # softmax scale; None: 1/sqrt(head_dim), halved if W_Q = I
    mixit_std: Optional[float] = None  # std of MixiT's M, all heads; None: per head (their code)
    mixit_sink: bool = False  # head 0 of every layer the authors' fixed "sink" (mixit sets it)
    # the authors' MixiT block (experiments/README.md, section 3, 'MixiT MLP gate', 'MixiT
    # residual', 'MixiT width multipliers'); None and 0: the paper's Llama block
    shaped_gate: Optional[float] = None  # c: the gate is gain * LeakyReLU(1 + c/sqrt(n)) (they: -1)
    skip_scaling: Optional[float] = None  # s: x <- s x + sqrt(1 - s^2) f(x) (they: sqrt(0.5))
    base_width: int = 0  # every linear's output times sqrt(base_width / fan_in); 0 = off
    scaled_init: bool = True  # o_proj, down_proj with std 0.02/sqrt(2 n_layer) (GPT-2); False: 0.02
    n_classes: int = 0  # > 0: a classifier head of n_classes outputs, read at the scored positions
    universal: str = ''  # '' | 'sparse' | 'random': the fixed universal backbone (universal_*)
    universal_k: int = 4  # query/key width k of each universal head
    universal_d: int = 0  # width d of the simulated T(H, L, d, k); 0 = vocab_size (+ positions)
    looped: bool = False  # universal: one fixed block's matrices in every layer (weight-tied)
    causal: bool = True  # causal mask; False = bidirectional (classify: False for MixiT only)
    pad_token: int = -1  # id whose embedding row stays zero, untrained (padding_idx); -1 = none
    seed: int = 0  # seeds every initial weight and fixed matrix

    def universal_shape(self):
        """(d, D) of universal_sparse: the simulated class's width and the backbone's (Thm 3.1)."""
        d = universal_width(self)
        return d, universal_dim(self.n_head, self.n_layer, d, self.universal_k, self.looped)


VARIANTS = {
    'standard': dict(),
    'frozen_qk': dict(frozen_qk=True),
    'frozen_mlp': dict(frozen_mlp=True),
    # mixit: no q/k for RoPE (Sec. 2); sink: class MixiT
    'mixit': dict(mixing='mixit', pos='learned', mixit_sink=True),
    'identity_query': dict(identity_query=True),
    'random': dict(frozen_blocks=True, pos='learned'),
    **{
        f'universal_{u}': dict(
            universal=u, frozen_blocks=True, pos='learned', norm='none', mlp='none', residual=False
        )
        for u in ('sparse', 'random')
    },  # attention only
}


# --- universal backbones ("Fixed Universal Transformers", Thm 3.1, re-derived: experiments/
# README.md, section 1). A target of the class T(H, L, d, k) maps X (m x d) layer by layer:
# X_l = sum_h A_lh X_{l-1} V_lh, with A_lh = softmax(mask(X_{l-1} Q_lh K_lh^T X_{l-1}^T / sqrt(k))),
# Q, K: d x k, V: d x d. Unrolled, X_L is a sum over the H^L head paths p = (h_1..h_L) of A_p X V_p,
# V_p = V_1h1 ... V_LhL. The universal model keeps, for every node p of that tree (a path prefix),
# its own columns of the width D: the node's queries V_p Q and keys V_p K for the next layer, or, at
# a leaf, V_p itself. Row-vector convention: Z (m x D) @ W.


def universal_width(c):
    """d of the simulated class: one-hot tokens, plus one-hot positions if positions are learned."""
    return c.universal_d or c.vocab_size + (c.block_size if c.pos == 'learned' else 0)


def universal_layout(H, L, d, k, looped=False):
    """-> ({path prefix (tuple of heads): (first column, width) of its block}, D), breadth-first.

    Unrolled: a node of depth < L owns 2Hk columns (for each head h of the next layer a k-wide query
    slot, then the H key slots), a leaf owns d.
    Looped: every prefix s owns 2Hk + d columns (query slots, key slots, a leaf slot), s being the
    path still to walk: each layer moves block s to block s[1:] along head s[0], and only block ()
    is read (our derivation, experiments/README.md, section 1)."""
    blocks, at = {}, 0
    for depth in range(L + 1):
        for p in itertools.product(range(H), repeat=depth):
            width = 2 * H * k + d if looped else (2 * H * k if depth < L else d)
            blocks[p] = at, width
            at += width
    return blocks, at


def universal_dim(H, L, d, k, looped=False):
    """D = 2Hk (1 + H + ... + H^(L-1)) + d H^L; looped: (2Hk + d)(1 + H + ... + H^L).
    No H^L nodes listed."""

    def geo(n):  # 1 + H + ... + H^(n-1)
        return n if H == 1 else (H**n - 1) // (H - 1)

    return (2 * H * k + d) * geo(L + 1) if looped else 2 * H * k * geo(L) + d * H**L


def universal_sparse_weights(H, L, d, k, layer, looped=False):
    """The fixed 0/1 matrices of layer l = `layer` (0-based; looped: every layer's): q, k (H, D, k)
    and v (H, D, D).

    Unrolled, head h: q sums the head-h query slots of the nodes of depth l, so that
    Z_l q = X_l Q_{l+1,h} by the unrolling; k likewise; v keeps the columns of the nodes of
    depth > l whose step l is h.
    Looped: q and k read block (); v moves every block s with s[0] = h to block s[1:]."""
    blocks, D = universal_layout(H, L, d, k, looped)
    q, kk, v = torch.zeros(H, D, k), torch.zeros(H, D, k), torch.zeros(H, D, D)
    for h in range(H):
        for p, (at, width) in blocks.items():
            if looped and p and p[0] == h:
                to = blocks[p[1:]][0]
                v[h, at : at + width, to : to + width] = torch.eye(width)
            if not looped and len(p) > layer and p[layer] == h:
                v[h, at : at + width, at : at + width] = torch.eye(width)
            # the blocks this layer reads its queries and keys from
            if (p == ()) if looped else (len(p) == layer):
                q[h, at + h * k : at + (h + 1) * k] = torch.eye(k)
                kk[h, at + (H + h) * k : at + (H + h + 1) * k] = torch.eye(k)
    return q, kk, v


def universal_embedding(target, H, L, d, k, looped=False):
    """The "program" of a target, target[l][h] = (Q (d, k), K (d, k), V (d, d)) for head h of layer
    l (0-based) -> E (d, D), U (D, d) such that the sparse universal model started at Z_0 = X E ends
    at Z_L with Z_L U = X_L exactly. Node p's block holds V_p Q_{|p|+1,h} and V_p K_{|p|+1,h} for
    every head h, or V_p at a leaf; U sums the slots where the leaves end up."""
    blocks, D = universal_layout(H, L, d, k, looped)
    like = target[0][0][0]
    E, U = like.new_zeros(d, D), like.new_zeros(D, d)
    eye = torch.eye(d, dtype=like.dtype, device=like.device)
    for p, (at, _) in blocks.items():
        Vp = eye
        for depth, h in enumerate(p):
            Vp = Vp @ target[depth][h][2]
        leaf = at + 2 * H * k if looped else at
        if len(p) < L:
            for h, (Q, K, _) in enumerate(target[len(p)]):
                E[:, at + h * k : at + (h + 1) * k] = Vp @ Q
                E[:, at + (H + h) * k : at + (H + h + 1) * k] = Vp @ K
        else:
            E[:, leaf : leaf + d] = Vp
        if (p == ()) if looped else (len(p) == L):
            U[leaf : leaf + d] = eye
    return E, U


def rope_tables(block_size, head_dim, base):
    """cos and sin of the rotary angles, (block_size, head_dim), rotate-half layout (Llama)."""
    inv_freq = 1.0 / base ** (torch.arange(0, head_dim, 2).float() / head_dim)
    angles = torch.outer(torch.arange(block_size).float(), inv_freq)
    angles = torch.cat((angles, angles), dim=-1)
    return angles.cos(), angles.sin()


def apply_rope(x, cos, sin):
    """x: (B, n_head, T, head_dim)."""
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


def make_norm(config):
    if config.norm == 'rmsnorm':
        return nn.RMSNorm(config.n_embd, eps=1e-6)
    if config.norm == 'layernorm':
        return nn.LayerNorm(config.n_embd, bias=config.bias)
    return nn.Identity()


class ScaledLinear(nn.Linear):
    """nn.Linear with its output (bias included) times a fixed width multiplier, the authors'
    ScaledLinear (experiments/README.md, section 3, 'MixiT width multipliers')."""

    def __init__(self, fan_in, fan_out, bias, multiplier):
        super().__init__(fan_in, fan_out, bias=bias)
        self.multiplier = multiplier

    def forward(self, x):
        return super().forward(x) * self.multiplier


def linear(config, fan_in, fan_out, base=None, bias=None):
    """A linear layer of the model: nn.Linear, or with base_width > 0 the authors' ScaledLinear with
    the multiplier sqrt(base / fan_in), base = base_width (down_proj's: 1)."""
    bias = config.bias if bias is None else bias
    multiplier = math.sqrt((base or config.base_width) / fan_in) if config.base_width else 1.0
    return (  # a multiplier of exactly 1 (fan_in = base) is no multiply: the same outputs
        nn.Linear(fan_in, fan_out, bias=bias)
        if multiplier == 1
        else ScaledLinear(fan_in, fan_out, bias, multiplier)
    )


def seeded(seed, name):
    """The generator of the tensor called `name`: each weight and fixed matrix is a function of
    (seed, name)."""
    return torch.Generator().manual_seed(zlib.crc32(f'{seed}:{name}'.encode()))


def unfused_names(name):
    """A fused projection's parts by the names they had as three linears, in the order of its rows
    (h.0.attn.qkv_proj.weight -> h.0.attn.q_proj.weight, ...): each draws its initial values from
    that name; [name] for other tensors."""
    m = re.fullmatch(r'(.*\.attn\.)([qkv]+)_proj\.(weight|bias)', name)
    return [f'{m[1]}{x}_proj.{m[3]}' for x in m[2]] if m else [name]


class Attention(nn.Module):
    """Causal softmax attention with RoPE on q/k ("Is Random Attention Sufficient?", Sec. 2).

    identity_query drops W_Q: the query of head h is its slice of the input (W_Q = I,
    wk-wv-probably-all-you-need), with the smaller default scale 1/(2 sqrt(hd)).
    q, k, v come from as few matmuls as training allows (nanoGPT's c_attn: one): those trained
    together are one linear named by its letters (qkv_proj; kv_proj if W_Q = I), Frozen-QK's fixed
    W_Q, W_K another (qk_proj, k_proj)."""

    def __init__(self, config):
        super().__init__()
        n, self.n_head, self.head_dim = config.n_embd, config.n_head, config.n_embd // config.n_head
        self.identity_query, self.frozen_qk = config.identity_query, config.frozen_qk
        # frozen_qk: GPT.frozen_modules keeps qk_proj (k_proj if W_Q = I) at initialization
        if self.identity_query and self.frozen_qk:  # W_Q = I
            self.k_proj = linear(config, n, n)
            self.v_proj = linear(config, n, n)
        elif self.identity_query:  # W_Q = I
            self.kv_proj = linear(config, n, 2 * n)
        elif self.frozen_qk:
            self.qk_proj = linear(config, n, 2 * n)
            self.v_proj = linear(config, n, n)
        else:
            self.qkv_proj = linear(config, n, 3 * n)  # nanoGPT's c_attn
        self.o_proj = linear(config, n, n)
        default = (
            1 / (2 * math.sqrt(self.head_dim))
            if config.identity_query
            else 1 / math.sqrt(self.head_dim)
        )
        self.scale = config.attn_scale or default
        self.dropout, self.causal = config.dropout, config.causal
        self.resid_dropout = nn.Dropout(config.dropout)

    def project(self, x):
        """x (B, T, C) -> q, k, v, each (B, nh, T, hd), before RoPE."""
        B, T, C = x.shape
        if self.identity_query and self.frozen_qk:
            q, k, v = x, self.k_proj(x), self.v_proj(x)
        elif self.identity_query:  # W_Q = I: head h reads slice h
            q, (k, v) = x, self.kv_proj(x).split(C, dim=-1)
        elif self.frozen_qk:
            (q, k), v = self.qk_proj(x).split(C, dim=-1), self.v_proj(x)
        else:
            q, k, v = self.qkv_proj(x).split(C, dim=-1)
        return [t.view(B, T, self.n_head, self.head_dim).transpose(1, 2) for t in (q, k, v)]

    def forward(self, x, rope=None):
        B, T, C = x.shape
        q, k, v = self.project(x)
        if rope is not None:
            q, k = apply_rope(q, *rope), apply_rope(k, *rope)
        y = F.scaled_dot_product_attention(
            q,
            k,
            v,
            is_causal=self.causal,
            scale=self.scale,
            dropout_p=self.dropout if self.training else 0.0,
        )
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.o_proj(y))


class MixiT(nn.Module):
    """MixiT ("Is Random Attention Sufficient?", Sec. 2, Eq. 2.3): no W_Q, W_K and no softmax;
    each head mixes its values with a fixed, input-independent random matrix
    A = I + C*(M - rowmean_causal(M)), drawn once from (seed, layer) and kept as a persistent
    buffer, so it is in every checkpoint and never trained.

    By default the authors' code's MixiT, which made the papers' numbers: each head its own std of
    M, head 0 a fixed "sink"; mixit_std=<value> and mixit_sink=False give the paper text's
    (experiments/README.md, section 3, 'MixiT std of M', 'MixiT head 0')."""

    def __init__(self, config, layer):
        super().__init__()
        n, self.n_head, self.head_dim = config.n_embd, config.n_head, config.n_embd // config.n_head
        g = seeded(config.seed, f'h.{layer}.attn.mix')
        m = config.block_size
        # their Llama path: head h's std uniform in [1/sqrt(m head_dim), 1/sqrt(m)]
        if config.mixit_std is None:
            low, high = 1 / math.sqrt(m * self.head_dim), 1 / math.sqrt(m)
            std = low + torch.rand(config.n_head, generator=g) * (high - low)
        else:
            std = torch.full((config.n_head,), config.mixit_std)
        self.register_buffer('std', std)  # (nh,), saved with the matrices it drew
        self.register_buffer('mix', self.matrix(m, std, g, config.mixit_sink, config.causal))
        self.causal = config.causal
        self.v_proj = linear(config, n, n)
        self.o_proj = linear(config, n, n)
        self.resid_dropout = nn.Dropout(config.dropout)

    @staticmethod
    def fixed_std(block_size, head_dim):
        """Eq. 2.3's one std, 1/sqrt(m head_dim), as the authors' GPT-2 path (experiments/README.md,
        section 3, 'MixiT std of M')."""
        return 1 / math.sqrt(block_size * head_dim)

    @staticmethod
    def matrix(block_size, std, generator, sink=False, causal=True):
        """The fixed mixing matrices of one layer, (n_head, m, m), for the heads' stds (n_head,)."""
        m, n_head = block_size, len(std)
        M = torch.randn(n_head, m, m, generator=generator) * std.view(-1, 1, 1)
        C = torch.tril(torch.ones(m, m))
        # Eq. 2.3, A = I + C*(M - rowmean_causal(M)), C the causal mask: row i's mean over j <= i,
        # so every row sums to one and reads columns j <= i only, and the top-left T x T block of A
        # is the matrix for any shorter length T
        if causal:
            A = torch.eye(m) + C * (M - (M * C).sum(-1, keepdim=True) / C.sum(-1, keepdim=True))
        else:  # all of M, less the causal row's mean (section 3, 'classifier (Yelp) attention')
            A = torch.eye(m) + M - M.sum(-1, keepdim=True) / torch.arange(1, m + 1).view(-1, 1)
        if sink:  # head 0: half on the token itself, half on the first (section 3, 'MixiT head 0')
            A[0] = 0.5 * torch.eye(m)
            A[0, :, 0] = 0.5
        return A

    def forward(self, x, rope=None):
        B, T, C = x.shape
        if not self.causal and T != self.mix.size(-1):
            raise ValueError(
                f'bidirectional MixiT mixes all {self.mix.size(-1)} positions of its matrix: '
                'give inputs of exactly block_size tokens (pad them), or build the model with '
                f'block_size={T}'
            )
        # y_h = A_h @ v_h for every head h, one bmm: v (B, T, nh, hd) -> (nh, T, B * hd), head h's
        # values of the whole batch side by side (broadcasting (nh, T, T) @ (B, nh, T, hd) would
        # keep B copies of A for backward)
        v = self.v_proj(x).view(B, T, self.n_head, self.head_dim).permute(2, 1, 0, 3)
        v = v.reshape(self.n_head, T, B * self.head_dim)
        A = self.mix[:, :T, :T].to(v.dtype)  # (nh, T, T); no copy: train.py casts the buffer once
        y = torch.bmm(A, v).view(self.n_head, T, B, self.head_dim)  # (nh, T, B, hd)
        y = y.permute(2, 1, 0, 3).reshape(B, T, C)  # (B, T, nh * hd)
        return self.resid_dropout(self.o_proj(y))


class UniversalAttention(nn.Module):
    """The fixed attention of the universal backbones: head h maps Z (T, D) to
    softmax(mask(Z q_h (Z k_h)^T / sqrt(k))) Z v_h, summed over the heads, no output projection.

    q_h, k_h (D, k), v_h (D, D) are persistent buffers, never trained: the 0/1 construction
    (universal_sparse_weights, Thm 3.1) or i.i.d. U(-1/sqrt(D), 1/sqrt(D)) (nn.Linear's default) as
    the random universal transformer (Thm 3.3). Looped: layer 0's matrices in every layer."""

    def __init__(self, config, layer):
        super().__init__()
        c, src = config, 0 if config.looped else layer
        H, D, k = c.n_head, c.n_embd, c.universal_k
        if c.universal == 'sparse':
            fixed = universal_sparse_weights(H, c.n_layer, universal_width(c), k, src, c.looped)
        else:
            bound = 1 / math.sqrt(D)
            fixed = [
                torch.rand(shape, generator=seeded(c.seed, f'h.{src}.attn.{name}')) * 2 * bound
                - bound
                for name, shape in zip('qkv', ((H, D, k), (H, D, k), (H, D, D)))
            ]
        for name, w in zip('qkv', fixed):
            self.register_buffer(name, w)
        self.causal = config.causal

    def forward(self, x, rope=None):
        q, k, v = (
            torch.einsum('btd,hde->bhte', x, w.to(x.dtype)) for w in (self.q, self.k, self.v)
        )
        # scale 1/sqrt(k)
        return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal).sum(1)


class MLP(nn.Module):
    """The gated MLP W_D(phi(W_G h) * W_U h) of the Llama block (Eq. 2.2, phi = SiLU), or GPT-2's
    W_D gelu(W_U h). shaped_gate = c is the authors' MixiT gate: phi = gain * LeakyReLU with
    negative slope 1 + c/sqrt(n) (experiments/README.md, section 3, 'MixiT MLP gate')."""

    def __init__(self, config):
        super().__init__()
        n, hidden = config.n_embd, int(config.mlp_ratio * config.n_embd)
        self.gated = config.mlp == 'gated'
        # GPT-2's gelu_new is the tanh form
        self.approximate = 'tanh' if config.mlp == 'gelu_tanh' else 'none'
        if self.gated:
            self.gate_proj = linear(config, n, hidden)
        self.up_proj = linear(config, n, hidden)
        self.down_proj = linear(config, hidden, n, base=1.0)
        self.dropout = nn.Dropout(config.dropout)
        self.slope = None if config.shaped_gate is None else 1 + config.shaped_gate / math.sqrt(n)
        self.gain = None if self.slope is None else nn.init.calculate_gain('leaky_relu', self.slope)

    def forward(self, x):
        if not self.gated:
            return self.dropout(
                self.down_proj(F.gelu(self.up_proj(x), approximate=self.approximate))
            )
        g = self.gate_proj(x)
        g = F.silu(g) if self.slope is None else self.gain * F.leaky_relu(g, self.slope)
        return self.dropout(self.down_proj(g * self.up_proj(x)))


class Block(nn.Module):
    def __init__(self, config, layer):
        super().__init__()
        self.residual, self.skip = config.residual, config.skip_scaling
        self.norm1 = make_norm(config)
        if config.universal:
            self.attn = UniversalAttention(config, layer)
        elif config.mixing == 'mixit':
            self.attn = MixiT(config, layer)
        else:
            self.attn = Attention(config)
        if config.mlp != 'none':
            self.norm2 = make_norm(config)
            self.mlp = MLP(config)

    def forward(self, x, rope=None):
        x = self.add(x, self.attn(self.norm1(x), rope))
        return self.add(x, self.mlp(self.norm2(x))) if hasattr(self, 'mlp') else x

    def add(self, x, f):
        # x + f(x); the authors' MixiT block: s x + sqrt(1 - s^2) f(x) (section 3, 'MixiT residual')
        if not self.residual:
            return f
        return x + f if self.skip is None else self.skip * x + math.sqrt(1 - self.skip**2) * f


# dense bf16 FLOP/s by GPU name, for the MFU
PEAK_FLOPS = {'H100': 989e12, 'H200': 989e12, 'A100': 312e12}
# each compute dtype's dense peak as a share of bf16's (an H100's: TF32 tensor cores 494.7, float32
# without them 67 TFLOP/s): a run's MFU is against the peak of the dtype it computes in
PEAK_SHARE = {'bfloat16': 1.0, 'float16': 1.0, 'tf32': 0.5, 'float32': 67 / 989}


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        check_config(config)
        self.config = config
        # pad_token's row: zero at init and no gradient, so it stays zero (padding_idx)
        self.wte = nn.Embedding(
            config.vocab_size,
            config.n_embd,
            padding_idx=config.pad_token if config.pad_token >= 0 else None,
        )
        if config.pos == 'learned':
            self.wpe = nn.Embedding(config.block_size, config.n_embd)
        if config.pos == 'rope':
            cos, sin = rope_tables(
                config.block_size, config.n_embd // config.n_head, config.rope_base
            )
            self.register_buffer('rope_cos', cos, persistent=False)  # recomputed, never saved
            self.register_buffer('rope_sin', sin, persistent=False)
        self.drop = nn.Dropout(config.dropout)
        self.h = nn.ModuleList([Block(config, layer) for layer in range(config.n_layer)])
        self.norm_f = make_norm(config)
        self.lm_head = linear(
            config, config.n_embd, config.n_classes or config.vocab_size, bias=False
        )
        if config.tie_embeddings:
            self.lm_head.weight = self.wte.weight
        self._init_weights()
        for module in self.frozen_modules():
            module.requires_grad_(False)

    def _init_weights(self):
        """nanoGPT's init (N(0, 0.02), residual projections scaled by 1/sqrt(2 n_layer), zero
        biases, unit norms), each tensor from its own generator seeded by (seed, name).

        scaled_init=False drops the 1/sqrt(2 n_layer), as the authors' code (experiments/README.md,
        section 3, 'init')."""
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name.endswith('bias'):
                    p.zero_()
                elif 'norm' in name:
                    p.fill_(1.0)
                else:  # projections back into the residual stream get GPT-2's 1/sqrt(2 n_layer)
                    residual_out = self.config.scaled_init and name.endswith(
                        ('o_proj.weight', 'down_proj.weight')
                    )
                    std = 0.02 / math.sqrt(2 * self.config.n_layer) if residual_out else 0.02
                    # a fused q, k, v: each from its own name, as every variant draws it
                    parts = unfused_names(name)
                    p.copy_(
                        torch.cat(
                            [
                                torch.randn(
                                    len(p) // len(parts),
                                    *p.shape[1:],
                                    generator=seeded(self.config.seed, part),
                                )
                                for part in parts
                            ]
                        )
                        * std
                    )
            # the padding row (pad_token) is zero
            if self.wte.padding_idx is not None:
                self.wte.weight[self.wte.padding_idx].zero_()

    def frozen_modules(self):
        """The modules kept at initialization (requires_grad=False from construction on): the one
        place that says what is trained.

        frozen_blocks is the random transformer (Zhong & Andreas 2024) and the universal backbones:
        only token/position embeddings and the LM head are trained."""
        c = self.config
        frozen = [*self.h, self.norm_f] if c.frozen_blocks else []
        for block in self.h:
            # W_Q (absent when W_Q = I) and W_K, one linear: the attention scores stay random
            if c.frozen_qk:
                frozen.append(block.attn.k_proj if c.identity_query else block.attn.qk_proj)
            if c.frozen_mlp:
                frozen.append(block.mlp)
        return frozen

    def fixed_to(self, dtype):
        """Casts the fixed matrices (every buffer: MixiT's, the universal q/k/v, RoPE's) to the
        compute dtype once, so that no step casts them again (train.py, bf16/fp16); a checkpoint
        holds the values the model computed with."""
        for module in self.modules():
            for name, buf in module._buffers.items():
                if buf is not None and buf.is_floating_point():
                    module._buffers[name] = buf.to(dtype)
        return self

    def get_num_params(self, trainable_only=True):
        return sum(p.numel() for p in self.parameters() if p.requires_grad or not trainable_only)

    def forward(self, idx, targets=None):
        """idx: (B, T) token ids; targets: (B, T), -1 = not scored. -> (logits, loss); without
        targets only the last position's logits are computed (all that generation needs)."""
        B, T = idx.shape
        if T > self.config.block_size:
            raise ValueError(
                f'sequence of length {T} is longer than block_size={self.config.block_size}: '
                f'build the model with block_size >= {T} or shorten the input'
            )
        x = self.wte(idx)
        x = self.drop(
            x + self.wpe(torch.arange(T, device=idx.device)) if self.config.pos == 'learned' else x
        )
        rope = (self.rope_cos[:T], self.rope_sin[:T]) if self.config.pos == 'rope' else None
        for block in self.h:
            x = block(x, rope)
        x = self.norm_f(x)
        if targets is None:
            return self.lm_head(x[:, [-1], :]), None
        logits = self.lm_head(x)
        return logits, F.cross_entropy(logits.flatten(0, 1), targets.reshape(-1), ignore_index=-1)

    def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
        """AdamW over the trained parameters only (frozen ones get no optimizer state).

        Weight decay on >= 2-D tensors (matrices and embeddings), none on biases and norms; fused
        kernel on CUDA."""
        params = [p for p in self.parameters() if p.requires_grad]
        groups = [
            dict(params=[p for p in params if p.dim() >= 2], weight_decay=weight_decay),
            dict(params=[p for p in params if p.dim() < 2], weight_decay=0.0),
        ]
        return torch.optim.AdamW(groups, lr=learning_rate, betas=betas, fused=device_type == 'cuda')

    def flops_per_token(self):
        """Training FLOPs per token that this variant really performs at T = block_size.

        Every linear costs 2 FLOPs per weight forward and 2 for the input gradient; the weight
        gradient (2 more) only where the weight is trained.
        Softmax attention: QK^T and AV forward, and dQ, dK, dV, dP backward, 2 FLOPs per head
        dimension and query-key pair each, over the pairs its kernel computes: the causal kernels
        (flash attention, on GPU and CPU) skip the masked half, (T + 1) / 2 keys per query on
        average, so 6 * (T + 1) * n per layer (nanoGPT/PaLM's 12 * T * n counts the masked half too;
        a flash kernel's recomputation in the backward pass is not counted, as activation
        recomputation never is).
        MixiT: no QK^T and no gradient for its fixed matrix, one dense (T, T) matmul forward and its
        value gradient, 4 * T * n per layer, the masked zeros included (a dense matmul multiplies
        them)."""
        c = self.config
        flops = sum(
            (6 if m.weight.requires_grad else 4) * m.weight.numel()
            for m in self.modules()
            if isinstance(m, nn.Linear)
        )
        T = c.block_size
        keys = (T + 1) / 2 if c.causal else T  # keys per query that a softmax kernel computes
        # per head: fixed projections (4 FLOPs a weight: no weight gradient), scores and AV
        if c.universal:
            D, k = c.n_embd, c.universal_k
            return flops + c.n_layer * c.n_head * (4 * (2 * D * k + D * D) + 6 * keys * (k + D))
        if c.mixing == 'mixit':
            return flops + c.n_layer * 4 * T * c.n_embd
        return flops + c.n_layer * 12 * keys * c.n_embd

    def estimate_mfu(self, fwdbwd_per_iter, dt, peak_flops=312e12):
        """Model FLOPs utilization: achieved FLOP/s over peak_flops
        (default A100 bf16, 312 TFLOP/s)."""
        flops_per_iter = self.flops_per_token() * self.config.block_size * fwdbwd_per_iter
        return flops_per_iter / dt / peak_flops

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        """Samples max_new_tokens continuations of idx (B, T), conditioning on at most block_size
        tokens; temperature 0 is greedy (its limit). Filled in place: nanoGPT's concatenation per
        token is quadratic in the length."""
        seq = torch.cat((idx, idx.new_empty(len(idx), max_new_tokens)), dim=1)
        for t in range(idx.shape[1], seq.shape[1]):
            logits, _ = self(seq[:, max(0, t - self.config.block_size) : t])
            logits = logits[:, -1, :]
            # 0, or so small that float32 logits / temperature overflow: the greedy limit
            if temperature < 1e-6:
                seq[:, t] = logits.argmax(-1)
                continue
            # shifted: no inf - inf at T = 1e-300
            logits = (logits - logits.amax(-1, keepdim=True)) / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float('inf')
            seq[:, t] = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)[:, 0]
        return seq
