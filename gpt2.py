"""
GPT-2's files: Hugging Face's config.json and weights, read by the libraries made for them
(safetensors, torch.load), checked, and mapped onto model.py's GPT (train.py's --init_from,
from_pretrained, nanoGPT's GPT.from_pretrained).

GPT-2 in Hugging Face's layout: transformer.{wte, wpe, h.<i>.{ln_1, attn.c_attn, attn.c_proj,
ln_2, mlp.c_fc, mlp.c_proj}, ln_f}, its linears HF's Conv1D, weight (in, out) where nn.Linear's is
(out, in), and c_attn's q, k and v side by side. Its block is model.py's GPT-2 flavour with biases
and the tanh GELU (gelu_new).
"""

import json
import os
from pathlib import Path

import torch
from safetensors.torch import load_file

from model import GPT, VARIANTS, GPTConfig, unfused_names

GPT2_FLAVOUR = dict(
    norm='layernorm', mlp='gelu_tanh', pos='learned', tie_embeddings=True, bias=True, mlp_ratio=4.0
)
GPT2_NAMES = {  # model.py's name in block i: GPT-2's
    'norm1': 'ln_1',
    'attn.o_proj': 'attn.c_proj',
    'norm2': 'ln_2',
    'mlp.up_proj': 'mlp.c_fc',
    'mlp.down_proj': 'mlp.c_proj',
}
GPT2_SIZES = ('n_layer', 'n_head', 'n_embd', 'vocab_size', 'n_positions')
# HF's activation_function: model.py's mlp (gelu_new and gelu_pytorch_tanh are both the tanh form)
GPT2_ACTIVATIONS = {'gelu_new': 'gelu_tanh', 'gelu_pytorch_tanh': 'gelu_tanh', 'gelu': 'gelu'}
# the settings of HF's GPT2Config that change what GPT-2 computes, with the values model.py builds
# (the first is HF's default); the others change nothing loaded here: dropouts (training),
# initializer_range (init), use_cache, token ids, the summary_* of the double-heads model, and
# add_cross_attention (unused without an encoder)
GPT2_SETTINGS = dict(
    model_type=('gpt2',),
    activation_function=tuple(GPT2_ACTIVATIONS),
    layer_norm_epsilon=(1e-5,),
    scale_attn_weights=(True,),  # scores / sqrt(head_dim)
    scale_attn_by_inverse_layer_idx=(False,),  # also / (layer + 1)
    reorder_and_upcast_attn=(False,),  # q k in float32
    tie_word_embeddings=(True,),  # the head is wte: load_gpt2 reads no head of its own
)


def read(path, load, fix):
    """load(path), any failure one line that names the file and says what to do."""
    if path.exists() and not path.is_file():  # a FIFO would block the read, a device never end it
        raise ValueError(f'cannot read {path} (not a regular file but a FIFO or a device): {fix}')
    try:
        return load(path)
    except Exception as e:  # each library raises its own types for a damaged file
        why = getattr(e, 'strerror', None) or f'{type(e).__name__}: {e}'.splitlines()[0][:160]
        raise ValueError(f'cannot read {path} ({why}): {fix}') from None


def check_gpt2_config(config, where):
    """GPT-2's config.json (its dict) against what model.py's GPT-2 flavour builds, before any
    weight is read: its sizes positive integers (JSON's true is not 1), n_inner 4 n_embd, and each
    of GPT2_SETTINGS at a value it builds; anything else refused by name rather than loaded as
    something else."""
    fix = "give GPT-2's own files"
    if not isinstance(config, dict):
        raise ValueError(f'{where} holds no JSON object of keys: {fix}')
    for key in GPT2_SIZES:
        if key not in config:
            raise ValueError(f"{where} lacks GPT-2's {key!r}: {fix}")
        if not (type(config[key]) is int and config[key] > 0):
            raise ValueError(
                f'{where} has {key}={json.dumps(config[key], default=repr):.60}, not a positive '
                f'integer: {fix}'
            )
    for key, builds in {**GPT2_SETTINGS, 'n_inner': (None, 4 * config['n_embd'])}.items():
        value = config.get(key, builds[0])
        if not any(type(value) is type(b) and value == b for b in builds):
            raise ValueError(
                f'{where} sets {key}={json.dumps(value, default=repr):.60}, which this GPT-2 does '
                f'not build (only {" or ".join(json.dumps(b) for b in builds)}): {fix}'
            )


def check_gpt2_weights(weights, where):
    """A weights file's object, as {name: tensor}, every float weight finite: NaN or inf would be
    blamed on the learning rate at the first step."""
    fix = "give GPT-2's own files"
    if not isinstance(weights, dict):
        raise ValueError(f'{where} holds a {type(weights).__name__}, not {{name: tensor}}: {fix}')
    for name, w in weights.items():
        if not (isinstance(name, str) and isinstance(w, torch.Tensor)):
            raise ValueError(
                f'{where} holds {name!r:.60} ({type(w).__name__}), not a tensor named by a string: '
                f'{fix}'
            )
        if w.is_floating_point() and not torch.isfinite(w).all():
            raise ValueError(
                f'{where} holds {name} with {w.numel() - int(torch.isfinite(w).sum())} NaN or '
                f'infinite values: {fix}'
            )


def gpt2_files(source):
    """-> (config.json's dict, {name: tensor}) of GPT-2 in Hugging Face's layout, both checked
    (check_gpt2_config, check_gpt2_weights).

    From a folder of its files (config.json and model.safetensors or pytorch_model.bin), else by
    name ('gpt2' ... 'gpt2-xl') through transformers, which downloads it: imported only here, when
    it is asked for."""
    folder = Path(os.path.expanduser(source))  # pathlib's raises for ~user of no user
    fix, again = "give a folder of GPT-2's files in Hugging Face's layout", 'fetch it again'
    if folder.is_dir():
        config = read(folder / 'config.json', lambda p: json.loads(p.read_text('utf-8-sig')), fix)
        check_gpt2_config(config, folder / 'config.json')
        # exists, not is_file: a FIFO or a device there is refused by name, by read
        if (folder / 'model.safetensors').exists():
            where = folder / 'model.safetensors'
            weights = read(where, load_file, again)
        elif (folder / 'pytorch_model.bin').exists():
            where = folder / 'pytorch_model.bin'
            # weights_only: a pickle from elsewhere could run code
            weights = read(
                where, lambda p: torch.load(p, map_location='cpu', weights_only=True), again
            )
        else:
            raise ValueError(
                f'{folder} holds neither model.safetensors nor pytorch_model.bin: {fix}'
            )
    else:
        try:
            from transformers import GPT2LMHeadModel
        except ImportError:
            raise ValueError(
                f'init_from={source!r} is not a folder; fetching it needs transformers '
                f'(pip install transformers) and the network: install it, or {fix}'
            ) from None
        try:
            hf = GPT2LMHeadModel.from_pretrained(source)
        except (OSError, ValueError) as e:
            raise ValueError(
                f'transformers cannot load {source!r} ({str(e)[:120]}): name a GPT-2 '
                f"('gpt2', 'gpt2-medium', ...) with the network up, or {fix}"
            ) from None
        config, weights, where = hf.config.to_dict(), hf.state_dict(), f'{source!r} of transformers'
        check_gpt2_config(config, where)
    check_gpt2_weights(weights, where)
    return config, {k.removeprefix('transformer.'): v for k, v in weights.items()}


def gpt2_args(config, variant, given, block_size):
    """GPT-2's shape, from its config.json (checked by gpt2_files), as GPTConfig fields over a new
    run's: refused where the `variant`'s flags or a model key `given` on the command line
    contradict it. tie_embeddings is free: an untied head starts from wte."""
    shape = dict(
        GPT2_FLAVOUR,
        **{key: config[key] for key in ('n_layer', 'n_head', 'n_embd', 'vocab_size')},
        mlp=GPT2_ACTIVATIONS[config.get('activation_function', 'gelu_new')],
        tie_embeddings=given.get('tie_embeddings', True),
    )
    for key, value in shape.items():
        if given.get(key, value) != value or variant.get(key, value) != value:
            how = (
                f'drop --{key}'
                if key in given
                else 'choose a variant with a standard block (not universal_*)'
            )
            raise ValueError(f'init_from loads GPT-2, whose {key} is {value!r}: {how}')
    positions = config['n_positions']
    if not 0 < block_size <= positions:
        raise ValueError(f'GPT-2 has {positions} positions: set block_size <= {positions}')
    return {**shape, 'block_size': block_size}


@torch.no_grad()
def load_gpt2(model, weights):
    """Copies GPT-2's tensors (gpt2_files) into model.py's GPT by name, nanoGPT's from_pretrained:
    its frozen parts are thereby frozen at GPT-2's values.

    -> the names left at model.py's init (MixiT's matrices, a classifier's head) and GPT-2's
    left unused (W_Q for identity_query, W_Q and W_K for MixiT). Learned positions beyond
    block_size are cut, as nanoGPT's crop_block_size does."""
    c = model.config
    try:
        ours = {
            'wte.weight': weights['wte.weight'],
            'wpe.weight': weights['wpe.weight'][: c.block_size],
            'norm_f.weight': weights['ln_f.weight'],
            'norm_f.bias': weights['ln_f.bias'],
        }
        # GPT-2's head is its token embedding; a classifier's head is ours
        if not c.n_classes:
            ours['lm_head.weight'] = weights['wte.weight']
        for i in range(c.n_layer):
            for name, theirs in GPT2_NAMES.items():
                w = weights[f'h.{i}.{theirs}.weight']
                ours[f'h.{i}.{name}.weight'] = w.t() if w.dim() == 2 else w
                ours[f'h.{i}.{name}.bias'] = weights[f'h.{i}.{theirs}.bias']
            c_attn = f'h.{i}.attn.c_attn'  # (n, 3n): q, k, v side by side
            w, b = weights[c_attn + '.weight'].t().chunk(3), weights[c_attn + '.bias'].chunk(3)
            for x, wx, bx in zip('qkv', w, b):
                ours[f'h.{i}.attn.{x}_proj.weight'], ours[f'h.{i}.attn.{x}_proj.bias'] = wx, bx
    except (KeyError, AttributeError) as e:
        raise ValueError(
            f"init_from's weights lack GPT-2's {e} (or are no tensors): give GPT-2's own files"
        ) from None
    state = model.state_dict()
    # a fused projection (qkv_proj, ...) stacked from GPT-2's parts, in the order of its rows
    for name in state:
        parts = unfused_names(name)
        if name not in ours and len(parts) > 1 and all(p in ours for p in parts):
            ours[name] = torch.cat([ours.pop(p) for p in parts])
    for name, w in ours.items():
        if name in state and w.shape != state[name].shape:
            raise ValueError(
                f"init_from's {name} has shape {tuple(w.shape)} where its config.json makes "
                f'{tuple(state[name].shape)}: give matching files'
            )
        if name in state:
            state[name].copy_(w)
    return [n for n in state if n not in ours], sorted(set(ours) - set(state))


def from_pretrained(source, variant='standard', block_size=1024, **keys):
    """nanoGPT's GPT.from_pretrained: GPT-2's weights (a folder of its Hugging Face files, or
    'gpt2', ... through transformers) in `variant`, with GPTConfig `keys` on top. train.py's
    --init_from runs the same three steps, with a memory check before the model is built. Here,
    not in model.py, so that model.py imports nothing above it."""
    config, weights = gpt2_files(source)
    args = {**VARIANTS[variant], **keys}
    model = GPT(GPTConfig(**{**args, **gpt2_args(config, VARIANTS[variant], keys, block_size)}))
    load_gpt2(model, weights)
    return model
