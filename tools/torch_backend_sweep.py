"""Beyond the tests: eighteen more architectures (torchvision, Hugging Face; small configs,
random weights) through torch.compile(backend="coil") on the CPU (or --device), each against
eager (TF32 off). One line
per model: the largest difference, graphs compiled, graphs run eagerly (with why), host
fallback ops, compile seconds.

    python tools/torch_backend_sweep.py [--device cuda] [model ...]
"""

import sys
import time
import warnings

import torch

import coil

warnings.simplefilter("ignore")
def tv(name, **kw):
    import torchvision
    return lambda: getattr(torchvision.models, name)(num_classes=10, **kw)
def hf(cls, cfgcls, **kw):
    import transformers as T
    return lambda: getattr(T, cls)(getattr(T, cfgcls)(attn_implementation="eager", **kw))
small = dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128, vocab_size=1000)
models = [
    ("resnet50", tv("resnet50"), "img", (1, 3, 64, 64)),
    ("efficientnet_b0", tv("efficientnet_b0"), "img", (1, 3, 64, 64)),
    ("convnext_tiny", tv("convnext_tiny"), "img", (1, 3, 64, 64)),
    ("densenet121", tv("densenet121"), "img", (1, 3, 64, 64)),
    ("squeezenet1_0", tv("squeezenet1_0"), "img", (1, 3, 64, 64)),
    ("shufflenet_v2_x0_5", tv("shufflenet_v2_x0_5"), "img", (1, 3, 64, 64)),
    ("regnet_y_400mf", tv("regnet_y_400mf"), "img", (1, 3, 64, 64)),
    ("vgg11_bn", tv("vgg11_bn"), "img", (1, 3, 32, 32)),
    ("swin_t", tv("swin_t"), "img", (1, 3, 64, 64)),
    ("mnasnet0_5", tv("mnasnet0_5"), "img", (1, 3, 64, 64)),
    ("distilbert", hf("DistilBertModel", "DistilBertConfig", n_layers=2, dim=64, n_heads=2, hidden_dim=128, vocab_size=1000), "tok", (1, 16)),
    ("roberta", hf("RobertaModel", "RobertaConfig", **small), "tok", (1, 16)),
    ("mistral", hf("MistralForCausalLM", "MistralConfig", num_key_value_heads=1, **small), "tok", (1, 16)),
    ("opt", hf("OPTForCausalLM", "OPTConfig", num_hidden_layers=2, hidden_size=64, num_attention_heads=2, ffn_dim=128, vocab_size=1000, word_embed_proj_dim=64), "tok", (1, 16)),
    ("t5", hf("T5EncoderModel", "T5Config", num_layers=2, d_model=64, num_heads=2, d_ff=128, d_kv=32, vocab_size=1000), "tok", (1, 16)),
    ("gpt_neox", hf("GPTNeoXForCausalLM", "GPTNeoXConfig", **small), "tok", (1, 16)),
    ("phi", hf("PhiForCausalLM", "PhiConfig", **small), "tok", (1, 16)),
    ("qwen2", hf("Qwen2ForCausalLM", "Qwen2Config", num_key_value_heads=1, **small), "tok", (1, 16)),
]
args = sys.argv[1:]
device = "cpu"
if args[:1] == ["--device"]:
    device, args = args[1], args[2:]
only = args
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
for name, make, kind, shape in models:
    if only and name not in only: continue
    torch.manual_seed(0); torch._dynamo.reset(); coil.reset_stats()
    try:
        m = make().eval().to(device)
        x = torch.randn(*shape) if kind == "img" else torch.randint(0, 1000, shape)
        x = x.to(device)
        with torch.no_grad():
            want = m(x)
            t = time.time()
            got = torch.compile(m, backend="coil", dynamic=False)(x)
        def first(o):
            if isinstance(o, torch.Tensor): return o
            for k in ("logits", "last_hidden_state"):
                if hasattr(o, k): return getattr(o, k)
            return first(o[0])
        err = (first(got) - first(want)).abs().max().item()
        s = coil.torch_stats()
        print(name, "err", f"{err:.2e}", "compiled", s["graphs_compiled"], "eager", s["graphs_to_eager"], "fallback", sorted(set(s["fallback_ops"])), f"{time.time()-t:.1f}s", flush=True)
    except Exception as e:
        print(name, "EXC", type(e).__name__, str(e)[:300], flush=True)
