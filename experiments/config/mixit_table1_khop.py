"""
Table 1 of "Is Random Attention Sufficient?" (the MixiT paper), k-hop induction heads (length 100, k
in 0..16, 100,000 training strings: data/khop/prepare.py's defaults, the paper's text): the k-hop
row of experiments/mixit/induction.py's full protocol (Table 8's model; train.py's optimizer, their
code has no k-hop). The paper's accuracy: standard 99.99, Frozen-MLP 99.89, Frozen-QK 96.73, MixiT
48.58.

    python train.py experiments/config/mixit_table1_khop.py
    python train.py experiments/config/mixit_table1_khop.py --variant=frozen_qk

Every variant has these keys: --variant=standard, frozen_mlp or frozen_qk trains its column. Data:
generated on first use. The learning rate (and the architecture) is the protocol's point before its
search; the experiment searches Table 7's grid per variant (fair.fair) and trains the best point on
3 seeds.

experiment: induction, task=khop, variant=mixit|standard|frozen_mlp|frozen_qk
"""

# the task (data/<task>/prepare.py)
task = 'khop'

# the model
variant = 'mixit'
n_layer = 5
n_head = 8
n_embd = 512

# the optimizer and schedule
learning_rate = 0.0001
warmup_iters = 100
min_lr = 1e-05

# the budget
batch_size = 128
max_iters = 5000
eval_interval = 5000
