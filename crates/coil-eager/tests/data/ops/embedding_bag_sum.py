class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[10, 3]", ids: "i64[10]", offsets: "i64[4]"):
        _embedding_bag = torch.ops.aten._embedding_bag.default(p_weight, ids, offsets);  p_weight = ids = offsets = None
        getitem: "f32[4, 3]" = _embedding_bag[0];  _embedding_bag = None
        return (getitem,)
