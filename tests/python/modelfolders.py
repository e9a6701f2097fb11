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


IMAGE_TOKEN = "<image>"


def llava(folder):
    """A seeded LLaVA (a tiny CLIP vision tower and Llama text model:
    AutoModelForImageTextToText) with its processor: the trained tokenizer with an
    `<image>` token and a CLIP image processor for 16x16 images (processor_config.json)."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import (CLIPImageProcessor, CLIPVisionConfig, LlamaConfig, LlavaConfig,
                              LlavaForConditionalGeneration, LlavaProcessor, PreTrainedTokenizerFast)

    os.makedirs(folder, exist_ok=True)
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(SENTENCES, trainers.WordLevelTrainer(special_tokens=SPECIAL + [IMAGE_TOKEN]))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="[PAD]",
                                   unk_token="[UNK]", extra_special_tokens={"image_token": IMAGE_TOKEN})
    images = CLIPImageProcessor(size={"shortest_edge": 16}, crop_size={"height": 16, "width": 16})
    LlavaProcessor(image_processor=images, tokenizer=fast, patch_size=8, vision_feature_select_strategy="full",
                   image_token=IMAGE_TOKEN, num_additional_image_tokens=1).save_pretrained(folder)
    torch.manual_seed(0)
    vision = CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                              image_size=16, patch_size=8, projection_dim=32)
    text = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                       num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                       pad_token_id=0, bos_token_id=1, eos_token_id=2)
    config = LlavaConfig(vision_config=vision, text_config=text, image_token_index=tok.token_to_id(IMAGE_TOKEN),
                         vision_feature_layer=-1, vision_feature_select_strategy="full")
    LlavaForConditionalGeneration(config).save_pretrained(folder)
    return folder


def whisper(folder):
    """A seeded two-layer Whisper (a speech seq2seq model: AutoModelForSpeechSeq2Seq) with
    a real WhisperFeatureExtractor config (preprocessor_config.json: 16 mel bins, 1-second
    chunks of 16 kHz audio, so 100 feature frames) and the trained tokenizer."""
    import torch
    from transformers import WhisperConfig, WhisperFeatureExtractor, WhisperForConditionalGeneration

    os.makedirs(folder, exist_ok=True)
    WhisperFeatureExtractor(feature_size=16, sampling_rate=16000, chunk_length=1).save_pretrained(folder)
    tokenizer(folder)
    torch.manual_seed(0)
    config = WhisperConfig(vocab_size=64, num_mel_bins=16, d_model=32, encoder_layers=2, decoder_layers=2,
                           encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                           decoder_ffn_dim=64, max_source_positions=50, max_target_positions=32, pad_token_id=0,
                           bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    WhisperForConditionalGeneration(config).save_pretrained(folder)
    return folder


def wav(path, seconds=0.5, rate=16000, width=2, channels=1, pitch=440.0):
    """A sine tone written with the standard library's wave module: `width` bytes per
    sample (1: unsigned 8-bit, 2-4: signed), `channels` interleaved."""
    import math
    import struct
    import wave

    top = (1 << (8 * width - 1)) - 1
    frames = bytearray()
    for i in range(int(seconds * rate)):
        value = int(0.5 * top * math.sin(2 * math.pi * pitch * i / rate))
        sample = struct.pack("<B", value + 128) if width == 1 else struct.pack("<i", value)[:width]
        frames += sample * channels
    with wave.open(path, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(bytes(frames))
    return path


def image(path, size, colour):
    """A PNG of one colour, written with Pillow."""
    from PIL import Image

    Image.new("RGB", size, colour).save(path)
    return path


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
    {"llama": llama, "t5": t5, "llava": llava, "whisper": whisper}[sys.argv[1]](sys.argv[2])
