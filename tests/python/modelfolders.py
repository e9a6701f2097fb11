# SPDX-License-Identifier: GPL-3.0-or-later
"""Real Hugging Face model folders made at test time (issue 21's tests): a seeded tiny
config saved with `save_pretrained`, and a real tokenizer trained with the `tokenizers`
library on a few sentences, saved as tokenizer.json with its tokenizer_config.json, so
that transformers' AutoTokenizer loads it. No hub, no downloads.

Usable as a script too: `scripts/torch-python tests/python/modelfolders.py llama FOLDER`."""

import json
import os
import sys

SENTENCES = [
    "the cat sat on the mat",
    "a dog ran in the park",
    "the bird sang a song in the tree",
    "what is the shape of a tensor",
    "export the model with dynamic shapes",
    "a small model reads short prompts",
]
SPECIAL = ["[PAD]", "<s>", "</s>", "[UNK]"]  # ids 0..3: pad, bos, eos, unk


def tokenizer(folder):
    """A word-level tokenizer trained on SENTENCES, saved into `folder`; its vocabulary size."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(SENTENCES, trainers.WordLevelTrainer(special_tokens=SPECIAL))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="[PAD]",
                                   unk_token="[UNK]")
    fast.save_pretrained(folder)
    return tok.get_vocab_size()


def llama(folder, with_tokenizer=True, max_positions=64):
    """A seeded two-layer Llama saved into `folder` (config.json, model.safetensors,
    generation_config.json), with the tokenizer unless `with_tokenizer` is false."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=max_positions,
                         pad_token_id=0, bos_token_id=1, eos_token_id=2)
    LlamaForCausalLM(config).save_pretrained(folder)
    if with_tokenizer:
        tokenizer(folder)
    return folder


def t5(folder):
    """A seeded two-layer T5 (an encoder-decoder: AutoModelForSeq2SeqLM) with the tokenizer."""
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(0)
    config = T5Config(vocab_size=64, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                      decoder_start_token_id=0, pad_token_id=0, eos_token_id=2)
    T5ForConditionalGeneration(config).save_pretrained(folder)
    tokenizer(folder)
    return folder


def add_auto_map(folder, marker):
    """Makes `folder` ask for remote code: config.json's auto_map names a modeling file
    in the folder that writes `marker` when it is imported (it must never be)."""
    with open(os.path.join(folder, "modeling_custom.py"), "w", encoding="utf-8") as f:
        f.write("open(%r, 'w').write('ran')\n" % str(marker))
    path = os.path.join(folder, "config.json")
    with open(path, encoding="utf-8") as f:
        config = json.load(f)
    config["auto_map"] = {"AutoModelForCausalLM": "modeling_custom.CustomForCausalLM"}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)


if __name__ == "__main__":
    {"llama": llama, "t5": t5}[sys.argv[1]](sys.argv[2])
