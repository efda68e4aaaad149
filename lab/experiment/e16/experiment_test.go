package e16

import ()
