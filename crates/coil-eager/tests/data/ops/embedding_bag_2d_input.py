class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[8, 5]", ids: "i64[3, 4]"):
        arange: "i64[3]" = torch.ops.aten.arange.start_step(0, 12, 4, dtype = torch.int64, device = device(type='cpu'), pin_memory = False)
        view: "i64[12]" = torch.ops.aten.view.default(ids, [-1])
        _embedding_bag = torch.ops.aten._embedding_bag.default(p_weight, view, arange);  view = arange = None
        getitem: "f32[3, 5]" = _embedding_bag[0];  _embedding_bag = None
        arange_1: "i64[3]" = torch.ops.aten.arange.start_step(0, 12, 4, dtype = torch.int64, device = device(type='cpu'), pin_memory = False)
        view_1: "i64[12]" = torch.ops.aten.view.default(ids, [-1])
        _embedding_bag_1 = torch.ops.aten._embedding_bag.default(p_weight, view_1, arange_1, False, 1);  view_1 = arange_1 = None
        getitem_4: "f32[3, 5]" = _embedding_bag_1[0];  _embedding_bag_1 = None
        arange_2: "i64[3]" = torch.ops.aten.arange.start_step(0, 12, 4, dtype = torch.int64, device = device(type='cpu'), pin_memory = False)
        view_2: "i64[12]" = torch.ops.aten.view.default(ids, [-1]);  ids = None
        _embedding_bag_2 = torch.ops.aten._embedding_bag.default(p_weight, view_2, arange_2, False, 2);  p_weight = view_2 = arange_2 = None
        getitem_8: "f32[3, 5]" = _embedding_bag_2[0];  _embedding_bag_2 = None
        return (getitem, getitem_4, getitem_8)
