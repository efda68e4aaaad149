package experiment

// The article catalogue's checks, for articles_test.go (an external test:
// it needs every experiment registered, which only package all does).
var (
	CheckArticles = checkArticles
	ArticleCounts = articleCounts
)
