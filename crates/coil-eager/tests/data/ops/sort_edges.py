class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[3, 6, 4]", xs_1: "b8[3, 7]", xs_2: "f16[4, 9]", xs_3: "f32[]", xs_4: "f32[2, 300]"):
        sort = torch.ops.aten.sort.default(xs_0, 1)
        getitem: "f32[3, 6, 4]" = sort[0]
        getitem_1: "i64[3, 6, 4]" = sort[1];  sort = None
        sort_1 = torch.ops.aten.sort.default(xs_0, -2, True)
        getitem_2: "f32[3, 6, 4]" = sort_1[0]
        getitem_3: "i64[3, 6, 4]" = sort_1[1];  sort_1 = None
        sort_2 = torch.ops.aten.sort.default(xs_1);  xs_1 = None
        getitem_4: "b8[3, 7]" = sort_2[0]
        getitem_5: "i64[3, 7]" = sort_2[1];  sort_2 = None
        sort_3 = torch.ops.aten.sort.default(xs_2, -1, True)
        getitem_6: "f16[4, 9]" = sort_3[0]
        getitem_7: "i64[4, 9]" = sort_3[1];  sort_3 = None
        topk = torch.ops.aten.topk.default(xs_2, 4, -1, False);  xs_2 = None
        getitem_8: "f16[4, 4]" = topk[0]
        getitem_9: "i64[4, 4]" = topk[1];  topk = None
        sort_4 = torch.ops.aten.sort.default(xs_3);  xs_3 = None
        getitem_10: "f32[]" = sort_4[0]
        getitem_11: "i64[]" = sort_4[1];  sort_4 = None
        slice_1: "f32[3, 1, 4]" = torch.ops.aten.slice.Tensor(xs_0, 1, 0, 1)
        sort_5 = torch.ops.aten.sort.default(slice_1, 1);  slice_1 = None
        getitem_12: "f32[3, 1, 4]" = sort_5[0]
        getitem_13: "i64[3, 1, 4]" = sort_5[1];  sort_5 = None
        topk_1 = torch.ops.aten.topk.default(xs_0, 4);  xs_0 = None
        getitem_14: "f32[3, 6, 4]" = topk_1[0]
        getitem_15: "i64[3, 6, 4]" = topk_1[1];  topk_1 = None
        sort_6 = torch.ops.aten.sort.default(xs_4)
        getitem_16: "f32[2, 300]" = sort_6[0]
        getitem_17: "i64[2, 300]" = sort_6[1];  sort_6 = None
        topk_2 = torch.ops.aten.topk.default(xs_4, 7);  xs_4 = None
        getitem_18: "f32[2, 7]" = topk_2[0]
        getitem_19: "i64[2, 7]" = topk_2[1];  topk_2 = None
        return (getitem, getitem_1, getitem_2, getitem_3, getitem_4, getitem_5, getitem_6, getitem_7, getitem_8, getitem_9, getitem_10, getitem_11, getitem_12, getitem_13, getitem_14, getitem_15, getitem_16, getitem_17, getitem_18, getitem_19)
