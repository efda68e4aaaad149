package e25

import ()
