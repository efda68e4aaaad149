package experiment_test

import (
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
	_ "github.com/veclab/veclab/lab/experiment/all" // registers every experiment
)

// TestArticleClaimsResolve: every verdict the article catalogue names is
// a registered claim (one, by its text), every claim without one says
// why, and the listing carries every article's count.
func TestArticleClaimsResolve(t *testing.T) {
	if err := experiment.CheckArticles(); err != nil {
		t.Fatal(err)
	}
	list := experiment.ArticleList(false)
	if strings.Contains(list, "unresolved") {
		t.Errorf("listing has unresolved references:\n%s", list)
	}
	seeds, claims, judged := experiment.ArticleCounts()
	for i, s := range seeds {
		if claims[i] == 0 || judged[i] > claims[i] || !strings.Contains(list, "article "+s+" ") {
			t.Errorf("article %s: %d claims, %d judged", s, claims[i], judged[i])
		}
		t.Logf("article %s: %d numbered claims, %d judged by verdicts", s, claims[i], judged[i])
	}
}
