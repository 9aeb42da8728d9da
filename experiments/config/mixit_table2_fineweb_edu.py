"""
Table 2 of "Is Random Attention Sufficient?" (the MixiT paper), language modeling on FineWeb-edu in
GPT-2's tokens: the mixit row of experiments/mixit/language_modeling.py's full protocol, the
authors' trainer.py settings (papers.authors). The paper's log perplexity: standard 3.05, Frozen-QK
3.16, MixiT 4.08.

The corpus is prepared first (it downloads; tiktoken's GPT-2 files too):

    python data/fineweb_edu/prepare.py
    python train.py experiments/config/mixit_table2_fineweb_edu.py

The standard transformer and Frozen-QK: mixit_table2_fineweb_edu_standard.py (their keys lack
MixiT's block). The batch of 512 sequences is 8 micro-batches of 64 (the experiment's --micro_batch;
under torchrun the processes share them). The learning rate (and the architecture and batch) is the
protocol's point before its search; the experiment searches Table 7's grid per variant (fair.fair)
and trains the best point on 3 seeds.

experiment: language_modeling, task=fineweb_edu, variant=mixit
"""

# the task (data/<task>/prepare.py)
task = 'fineweb_edu'

# the model
variant = 'mixit'
n_layer = 12
n_head = 8
n_embd = 512
block_size = 256
vocab_size = 50304
bias = True
scaled_init = False

# MixiT's block as the authors' code runs it (papers.MIXIT_BLOCK, MIXIT_DRIVER)
shaped_gate = -1.0
skip_scaling = 0.5
base_width = 512

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
