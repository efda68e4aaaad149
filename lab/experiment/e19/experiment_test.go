package e19

import ()
