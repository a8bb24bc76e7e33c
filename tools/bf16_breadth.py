"""Architectures beyond the tests' six, in bf16 through torch.compile(backend="coil") (CPU or GPU)
(issue 19: "other bf16 models will be used to check this issue"): each built small from its
config with random weights, cast to bf16, run eagerly and through coil (`strict`: a graph coil
cannot compile is an error, not an eager fallback), and judged by coil's one oracle, ``coil.judge`` (the rule coil's CLI, conformance suite and
tests share; for 16-bit outputs coil's RMS error against the model run in float64, float32 where
it cannot run in float64, at most twice eager's plus a tenth of the dtype's tolerance of the
output's scale). One JSON line a model: ok, mismatch (with both errors) or error (the message).

    python tools/bf16_breadth.py [--only NAME,NAME] [--dtype bfloat16|float16] [--device cuda]

A model whose library is not installed is reported as `skipped`.
"""
import argparse
import json
import time
import traceback

import torch

import coil


def tv(name, **kw):
    def make():
        import torchvision

        return getattr(torchvision.models, name)(**kw)

    return make


def timm_model(name, **kw):
    def make():
        import timm

        return timm.create_model(name, pretrained=False, **kw)

    return make


def hf(cls_name, cfg_name, **cfg):
    def make():
        import transformers as T

        return getattr(T, cls_name)(getattr(T, cfg_name)(**cfg))

    return make


SMALL_LM = dict(vocab_size=512, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                intermediate_size=128, max_position_embeddings=64)
IMAGE = ("image", (1, 3, 64, 64))
TOKENS = ("tokens", (2, 12))

MODELS = [
    ("shufflenet_v2", tv("shufflenet_v2_x0_5", num_classes=10), IMAGE),
    ("mnasnet", tv("mnasnet0_5", num_classes=10), IMAGE),
    ("efficientnet_b0", tv("efficientnet_b0", num_classes=10), IMAGE),
    ("regnet_x_400mf", tv("regnet_x_400mf", num_classes=10), IMAGE),
    ("densenet121", tv("densenet121", num_classes=10), IMAGE),
    ("googlenet", tv("googlenet", num_classes=10, aux_logits=False, init_weights=True), IMAGE),
    ("mobilenet_v2", tv("mobilenet_v2", num_classes=10), IMAGE),
    ("squeezenet1_1", tv("squeezenet1_1", num_classes=10), IMAGE),
    ("convnext_tiny", tv("convnext_tiny", num_classes=10), IMAGE),
    ("swin_t", tv("swin_t", num_classes=10), IMAGE),
    ("resnext50", tv("resnext50_32x4d", num_classes=10), IMAGE),
    ("timm_deit_tiny", timm_model("deit_tiny_patch16_224", img_size=64, num_classes=10), IMAGE),
    ("timm_mixer", timm_model("mixer_s16_224", img_size=64, num_classes=10), IMAGE),
    ("timm_poolformer", timm_model("poolformer_s12", num_classes=10), IMAGE),
    ("timm_mobilevit", timm_model("mobilevit_xxs", num_classes=10), IMAGE),
    ("timm_efficientnet", timm_model("efficientnet_b0", num_classes=10), IMAGE),
    ("distilbert", hf("DistilBertModel", "DistilBertConfig", vocab_size=512, dim=64, n_layers=2,
                      n_heads=4, hidden_dim=128, max_position_embeddings=64,
                      attn_implementation="eager"), TOKENS),
    ("roberta", hf("RobertaModel", "RobertaConfig", **SMALL_LM, attn_implementation="eager"), TOKENS),
    ("albert", hf("AlbertModel", "AlbertConfig", embedding_size=32, **SMALL_LM,
                  attn_implementation="eager"), TOKENS),
    ("electra", hf("ElectraModel", "ElectraConfig", embedding_size=32, **SMALL_LM,
                   attn_implementation="eager"), TOKENS),
    ("gpt_neo", hf("GPTNeoModel", "GPTNeoConfig", vocab_size=512, hidden_size=64, num_layers=2,
                   num_heads=4, attention_types=[[["global", "local"], 1]], window_size=8,
                   max_position_embeddings=64), TOKENS),
    ("opt", hf("OPTModel", "OPTConfig", vocab_size=512, hidden_size=64, num_hidden_layers=2,
               num_attention_heads=4, ffn_dim=128, max_position_embeddings=64,
               word_embed_proj_dim=64, attn_implementation="eager"), TOKENS),
    ("bloom", hf("BloomModel", "BloomConfig", vocab_size=512, hidden_size=64, n_layer=2, n_head=4),
     TOKENS),
    ("mistral", hf("MistralModel", "MistralConfig", **SMALL_LM, num_key_value_heads=2,
                   attn_implementation="eager"), TOKENS),
    ("qwen2", hf("Qwen2Model", "Qwen2Config", **SMALL_LM, num_key_value_heads=2,
                 attn_implementation="eager"), TOKENS),
    ("phi", hf("PhiModel", "PhiConfig", **SMALL_LM, attn_implementation="eager"), TOKENS),
    ("t5_encoder", hf("T5EncoderModel", "T5Config", vocab_size=512, d_model=64, d_kv=16, d_ff=128,
                      num_layers=2, num_heads=4), TOKENS),
    ("bart", hf("BartModel", "BartConfig", vocab_size=512, d_model=64, encoder_layers=1,
                decoder_layers=1, encoder_attention_heads=4, decoder_attention_heads=4,
                encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=64,
                attn_implementation="eager"), TOKENS),
    ("falcon", hf("FalconModel", "FalconConfig", vocab_size=512, hidden_size=64,
                  num_hidden_layers=2, num_attention_heads=4, attn_implementation="eager"), TOKENS),
]


def first(out):
    """The first tensor of a model's output (a tensor, a tuple, or a ModelOutput)."""
    if isinstance(out, torch.Tensor):
        return out
    if hasattr(out, "to_tuple"):
        out = out.to_tuple()
    for o in out:
        t = first(o) if not isinstance(o, torch.Tensor) else o
        if t is not None:
            return t
    return None


def check(name, make, kind, shape, dtype, device):
    torch.manual_seed(0)
    model = make().eval()
    if kind == "image":
        x = torch.randn(*shape)
    else:
        x = torch.randint(1, 500, shape)
    with torch.no_grad():
        # The float64 reference on the CPU (float32 where a model's kernels take no float64,
        # e.g. grouped matmuls); the model and its input then go to the device.
        try:
            ref = first(model.double()(x.double() if x.is_floating_point() else x)).double()
        except RuntimeError:
            ref = first(model.float()(x.float() if x.is_floating_point() else x)).double()
        model = model.to(device).to(dtype)
        x = x.to(device)
        xin = x.to(dtype) if x.is_floating_point() else x
        eager = first(model(xin)).double()
        torch._dynamo.reset()
        f = torch.compile(model, backend="coil", dynamic=False, options={"strict": True})
        t0 = time.perf_counter()
        got = first(f(xin)).double()
        compile_s = time.perf_counter() - t0
    ref, eager, got = ref.cpu(), eager.cpu(), got.cpu()
    scale = ref.abs().max().item()
    e_eager = (eager - ref).abs().max().item()
    e_coil = (got - ref).abs().max().item()
    # The oracle reads the 16-bit dtype off its arguments: judge them as the model gave them.
    ok, why = coil.judge(got.to(dtype), eager.to(dtype), ref)
    return {"model": name, "status": "ok" if ok else "mismatch", "why": why, "err_coil": e_coil,
            "err_eager": e_eager, "scale": scale, "compile_s": round(compile_s, 1)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--only", default="")
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--device", default="cpu")
    a = p.parse_args()
    only = set(filter(None, a.only.split(",")))
    dtype = getattr(torch, a.dtype)
    for name, make, (kind, shape) in MODELS:
        if only and name not in only:
            continue
        try:
            r = check(name, make, kind, shape, dtype, a.device)
        except ImportError as e:
            r = {"model": name, "status": "skipped", "error": str(e)[:200]}
        except Exception as e:  # noqa: BLE001 - every failure is reported, the run goes on
            msg = "".join(traceback.format_exception_only(type(e), e)).strip()
            r = {"model": name, "status": "error", "error": msg[:700]}
        print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
