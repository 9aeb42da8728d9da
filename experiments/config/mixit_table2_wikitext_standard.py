"""
Table 2 of "Is Random Attention Sufficient?" (the MixiT paper), language modeling on WikiText-103 in
GPT-2's tokens: the standard row of experiments/mixit/language_modeling.py's full protocol, the
authors' trainer.py settings (papers.authors). The paper's log perplexity: standard 2.78, Frozen-QK
3.07, MixiT 3.73.

The corpus is prepared first (it downloads; tiktoken's GPT-2 files too):

    python data/wikitext/prepare.py
    python train.py experiments/config/mixit_table2_wikitext_standard.py

The experiment also reports the test split, from the finished run:
    python train.py --resume out/<run> --eval_split=test

Frozen-QK: add --variant=frozen_qk (the same keys otherwise). MixiT: mixit_table2_wikitext.py, which
adds MixiT's block. The batch of 512 sequences is 8 micro-batches of 64 (the experiment's
--micro_batch; under torchrun the processes share them). The learning rate (and the architecture and
batch) is the protocol's point before its search; the experiment searches Table 7's grid per variant
(fair.fair) and trains the best point on 3 seeds.

experiment: language_modeling, task=wikitext, variant=standard|frozen_qk
"""

# the task (data/<task>/prepare.py)
task = 'wikitext'

# the model
variant = 'standard'
n_layer = 12
n_head = 8
n_embd = 512
block_size = 256
vocab_size = 50304
bias = True
scaled_init = False

# the optimizer and schedule
learning_rate = 0.0005
lr_schedule = 'linear'
warmup_iters = 1600
min_lr = 0.0
weight_decay = 0.01
beta1 = 0.9
beta2 = 0.999
dtype = 'float32'

# the budget
batch_size = 64
gradient_accumulation_steps = 8
max_iters = 40000
eval_interval = 4000
