package e22

import ()
