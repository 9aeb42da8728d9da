"""
The default run: what `python train.py` trains when no key is given (configurator.DEFAULT_RUN).
Dyck-1 as the papers' text has it (strings of up to 40 brackets; --task=dyck alone is the authors'
80) for 500 steps of the default model, which learns it exactly in under a minute on 2 CPU cores.

    python train.py experiments/config/default.py
    python train.py experiments/config/default.py --variant=mixit   # a flag after it wins

A config file holds `key = value` lines, as nanoGPT's config/ does, but it is read, never run: each
value a literal (a number, a string, True, False, None), no import, call or expression. Every key
is one of `python train.py --help`.

experiment: configurator.DEFAULT_RUN
"""

task = 'dyck'
format = 'text'  # the paper text's strings, not the authors' format
length = 40  # brackets at most
max_iters = 500
