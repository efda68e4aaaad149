package e21

import ()
