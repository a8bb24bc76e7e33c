class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[8, 3]", ids: "i32[5]", offsets: "i32[3]"):
        _embedding_bag = torch.ops.aten._embedding_bag.default(p_weight, ids, offsets)
        getitem: "f32[3, 3]" = _embedding_bag[0];  _embedding_bag = None
        _embedding_bag_1 = torch.ops.aten._embedding_bag.default(p_weight, ids, offsets, False, 1)
        getitem_4: "f32[3, 3]" = _embedding_bag_1[0];  _embedding_bag_1 = None
        _embedding_bag_2 = torch.ops.aten._embedding_bag.default(p_weight, ids, offsets, False, 2);  p_weight = ids = offsets = None
        getitem_8: "f32[3, 3]" = _embedding_bag_2[0];  _embedding_bag_2 = None
        return (getitem, getitem_4, getitem_8)
