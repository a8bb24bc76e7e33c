class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[5, 7]", xs_1: "f32[5, 7]", xs_2: "i64[4, 6]", xs_3: "i64[3, 9]", xs_4: "bf16[3, 8]"):
        sort = torch.ops.aten.sort.default(xs_0)
        getitem: "f32[5, 7]" = sort[0]
        getitem_1: "i64[5, 7]" = sort[1];  sort = None
        sort_1 = torch.ops.aten.sort.default(xs_0, 0, True)
        getitem_2: "f32[5, 7]" = sort_1[0]
        getitem_3: "i64[5, 7]" = sort_1[1];  sort_1 = None
        sort_2 = torch.ops.aten.sort.stable(xs_0, stable = True, descending = True);  xs_0 = None
        getitem_4: "f32[5, 7]" = sort_2[0]
        getitem_5: "i64[5, 7]" = sort_2[1];  sort_2 = None
        sort_3 = torch.ops.aten.sort.default(xs_2);  xs_2 = None
        getitem_6: "i64[4, 6]" = sort_3[0]
        getitem_7: "i64[4, 6]" = sort_3[1];  sort_3 = None
        topk = torch.ops.aten.topk.default(xs_1, 3)
        getitem_8: "f32[5, 3]" = topk[0]
        getitem_9: "i64[5, 3]" = topk[1];  topk = None
        topk_1 = torch.ops.aten.topk.default(xs_1, 2, 0, False);  xs_1 = None
        getitem_10: "f32[2, 7]" = topk_1[0]
        getitem_11: "i64[2, 7]" = topk_1[1];  topk_1 = None
        topk_2 = torch.ops.aten.topk.default(xs_3, 4);  xs_3 = None
        getitem_12: "i64[3, 4]" = topk_2[0]
        getitem_13: "i64[3, 4]" = topk_2[1];  topk_2 = None
        topk_3 = torch.ops.aten.topk.default(xs_4, 5);  xs_4 = None
        getitem_14: "bf16[3, 5]" = topk_3[0]
        getitem_15: "i64[3, 5]" = topk_3[1];  topk_3 = None
        return (getitem, getitem_1, getitem_2, getitem_3, getitem_4, getitem_5, getitem_6, getitem_7, getitem_8, getitem_9, getitem_10, getitem_11, getitem_12, getitem_13, getitem_14, getitem_15)
