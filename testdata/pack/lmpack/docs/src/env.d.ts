drop category import count import drop if drop
type tree return largest await config priority markdown
tokens options markdown options const function import markdown
budget count markdown drop string value files category

;
