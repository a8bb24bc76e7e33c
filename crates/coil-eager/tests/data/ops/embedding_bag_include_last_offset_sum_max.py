class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[10, 3]", ids: "i64[10]", offsets: "i64[4]"):
        _embedding_bag = torch.ops.aten._embedding_bag.default(p_weight, ids, offsets, False, 0, False, None, True)
        getitem: "f32[3, 3]" = _embedding_bag[0];  _embedding_bag = None
        _embedding_bag_1 = torch.ops.aten._embedding_bag.default(p_weight, ids, offsets, False, 2, False, None, True);  p_weight = ids = offsets = None
        getitem_4: "f32[3, 3]" = _embedding_bag_1[0];  _embedding_bag_1 = None
        return (getitem, getitem_4)
