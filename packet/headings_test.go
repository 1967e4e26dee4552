package packet

import "testing"

// A record's own headings sit below the packet's "## Rank N" in md.
func TestDemoteHeadings(t *testing.T) {
	in := "# Title\n\nText #not a heading\n## Part\n   #### Deep\n##### Five\n###### Six\n####### seven\n#hashtag\n#\n```\n# in code\n```\n    # indented code\n~~~\n## tilde code\n~~~\n# After"
	want := "### Title\n\nText #not a heading\n#### Part\n   ###### Deep\n###### Five\n###### Six\n####### seven\n#hashtag\n###\n```\n# in code\n```\n    # indented code\n~~~\n## tilde code\n~~~\n### After"
	if got := demoteHeadings(in); got != want {
		t.Errorf("demoteHeadings:\n%s\nwant\n%s", got, want)
	}
	if got := demoteHeadings("no headings at all"); got != "no headings at all" {
		t.Errorf("plain text changed: %q", got)
	}
}
