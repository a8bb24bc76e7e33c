class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[10, 3]", ids: "i64[10]", offsets: "i64[4]"):
        _embedding_bag = torch.ops.aten._embedding_bag.default(p_weight, ids, offsets, False, 0, False, None, False, 2);  p_weight = ids = offsets = None
        getitem: "f32[4, 3]" = _embedding_bag[0]
        getitem_1: "i64[10]" = _embedding_bag[1]
        getitem_2: "i64[4]" = _embedding_bag[2]
        getitem_3: "i64[4]" = _embedding_bag[3];  _embedding_bag = None
        cat: "i64[14]" = torch.ops.aten.cat.default([getitem_1, getitem_2]);  getitem_1 = getitem_2 = None
        return (getitem, cat, getitem_3)
