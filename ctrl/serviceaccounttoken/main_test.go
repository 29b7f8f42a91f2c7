package serviceaccounttoken

import (
	"os"
	"testing"

	"github.com/kcmlab/kcm/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
