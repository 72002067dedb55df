"""Every word a player reads, in French (the default) and English, in one catalogue.

No Textual here: ``pioche replay`` prints games as text with the same words. A message is a
``str.format`` template; parameters are plain values (names are user text: the screens render
the result as ``Text``, never as markup).

    t = Catalogue("en")
    t("lobby.hello", name="Alice")        # 'Hello Alice!'
    t.count("n.cards", 1)                  # '1 card'
    t.refusal(error)                       # a coordinator Refused, by its code
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

LANGS = ("fr", "en")

MESSAGES: dict[str, tuple[str, str]] = {
    # --- everywhere ----------------------------------------------------------------------
    "game.defausse": ("Défausse", "Défausse"),
    "game.collection": ("Collection", "Collection"),
    "closed.other": ("Session terminée.", "Session ended."),
    "too_small.title": ("Terminal trop petit", "Terminal too small"),
    "too_small.body": (
        "Pioche a besoin d'au moins {min_w}×{min_h} cases ; ce terminal en a {w}×{h}.\n"
        "Agrandissez la fenêtre : le jeu reprend tout seul.",
        "Pioche needs at least {min_w}×{min_h} cells; this terminal has {w}×{h}.\n"
        "Make the window larger: the game comes back by itself.",
    ),
    # pioche play, when another process holds its data directory (store/lock.py)
    "play.busy": (
        "Pioche ne peut pas ouvrir {dir} : {holder} l'utilise déjà. Quittez-le, ou choisissez "
        "un autre dossier avec --data-dir.",
        "Pioche cannot open {dir}: {holder} is already using it. Quit it, or choose another "
        "directory with --data-dir.",
    ),
    "play.busy.holder": ("le processus {pid} ({command})", "process {pid} ({command})"),
    "play.busy.unknown": ("un autre processus", "another process"),
    # --- keys (the key bar and the help) -------------------------------------------------
    "key.quit": ("quitter", "quit"),
    "key.help": ("aide", "help"),
    "key.close": ("fermer", "close"),
    "key.page": ("page", "page"),
    "key.new_table": ("créer", "create"),
    "key.join": ("entrer", "join"),
    "key.watch": ("regarder", "watch"),
    "key.quick": ("rapide", "quick"),
    "key.scores": ("scores", "scores"),
    "key.chat": ("chat", "chat"),
    "key.admin": ("admin", "admin"),
    "key.admin_switch": ("liste suivante", "next list"),
    "key.admin_kick": ("expulser", "kick"),
    "key.admin_ban": ("bannir", "ban"),
    "key.admin_close": ("fermer la table", "close table"),
    "key.admin_broadcast": ("annonce", "broadcast"),
    "key.admin_motd": ("accueil", "message of the day"),
    "key.send": ("envoyer", "send"),
    "key.back": ("retour", "back"),
    "key.leave": ("quitter", "leave"),
    "key.start": ("lancer", "start"),
    "key.choose": ("choisir", "choose"),
    "key.play": ("jouer", "play"),
    "key.why": ("pourquoi", "why"),
    "key.draw": ("piocher", "draw"),
    "key.take": ("prendre les cartes", "take the cards"),
    "key.pass": ("passer", "pass"),
    "key.keep": ("garder", "keep"),
    "key.announce": ("jouer + annoncer", "play + announce"),
    "key.catch": ("contrer", "catch"),
    "key.colour": ("couleur", "colour"),
    "key.create": ("créer", "create"),
    "key.cancel": ("annuler", "cancel"),
    "key.ok": ("valider", "confirm"),
    "key.next_field": ("champ suivant", "next field"),
    "key.game_filter": ("jeu", "game"),
    "key.log_back": ("remonter le journal", "log back"),
    "key.log_forward": ("descendre le journal", "log forward"),
    "key.lobby": ("retour au salon", "back to the lobby"),
    "key.rematch": ("revanche", "rematch"),
    "key.invite": ("inviter", "invite"),
    "help.invite": ("copier la commande qui fait asseoir un ami à cette table en attente",
                    "copy the command that seats a friend at this waiting table"),
    "join.copied": ("Copié (si votre terminal le permet) : {command}",
                    "Copied (if your terminal allows it): {command}"),
    "join.copied_no_code": ("Copié (si votre terminal le permet) : {command} — table privée : "
                            "ajoutez son code.",
                            "Copied (if your terminal allows it): {command} — a private "
                            "table: add its code."),
    "key.see_table": ("voir la table", "see the table"),
    "key.digits": ("carte n° 1 à 9", "card no. 1 to 9"),
    "key.yes": ("oui", "yes"),
    "key.no": ("non", "no"),
    "key.lock": ("verrouiller", "lock"),
    "key.stop": ("stop", "stop"),
    "key.activate": ("activer", "activate"),
    "key.reserve": ("réserver", "reserve"),
    "key.activate_reserve": ("carte de réserve", "reserve card"),
    "key.keep_pile": ("garder la pile", "keep the pile"),
    "key.new_pile": ("nouvelle pile", "new pile"),
    "key.joker": ("Joker", "Joker"),
    "key.tick": ("cocher", "tick"),
    "key.best": ("meilleur", "best"),
    "key.refuse_all": ("tout refuser", "refuse all"),
    "key.compose": ("composer", "compose"),
    "key.option_number": ("option n° 1 à 9", "option no. 1 to 9"),
    "key.settings": ("réglages", "settings"),
    "keyname.space": ("espace", "space"),
    "keyname.esc": ("échap", "esc"),
    "key.change": ("changer", "change"),
    # longer descriptions, for the help
    "help.new_table": ("créer une table : le jeu, les joueurs, les robots, les options",
                       "create a table: the game, the players, the bots, the options"),
    "help.join": ("s'asseoir à la table choisie (Entrée : s'asseoir, ou regarder si "
                  "elle est pleine)",
                  "sit at the chosen table (Enter: sit, or watch when it is full)"),
    "help.watch": ("regarder la table choisie", "watch the chosen table"),
    "help.quick_defausse": ("partie rapide de Défausse contre des robots",
                            "quick game of Défausse against bots"),
    "help.quick_collection": ("partie rapide de Collection contre des robots",
                              "quick game of Collection against bots"),
    "help.scores": ("le classement et vos statistiques", "the leaderboard and your statistics"),
    "help.chat": ("écrire dans la discussion", "write in the chat"),
    "help.admin": ("l'écran d'administration du serveur", "the server's admin screen"),
    "admin.header": ("Admin · {n} en ligne · {tables} tables",
                     "Admin · {n} online · {tables} tables"),
    "admin.online": ("En ligne (Tab : liste suivante)", "Online (Tab: next list)"),
    "admin.tables": ("Tables", "Tables"),
    "admin.col.name": ("Nom", "Name"),
    "admin.col.key": ("Clé", "Key"),
    "admin.col.address": ("Adresse", "Address"),
    "admin.col.table": ("Table", "Table"),
    "admin.col.idle": ("Inactif", "Idle"),
    "admin.col.id": ("Table", "Table"),
    "admin.col.game": ("Jeu", "Game"),
    "admin.col.status": ("État", "Status"),
    "admin.col.step": ("Coup", "Move"),
    "admin.col.spectators": ("Spect.", "Watch."),
    "admin.col.seats": ("Places", "Seats"),
    "admin.guest": ("invité", "guest"),
    "admin.watcher": (" (spectateur)", " (watcher)"),
    "admin.motd": ("Message du jour : ", "Message of the day: "),
    "admin.no_motd": ("aucun (m pour en écrire un)", "none (m to write one)"),
    "admin.bans": ("Bannis : ", "Banned: "),
    "admin.no_bans": ("personne", "nobody"),
    "admin.forever": ("pour de bon", "for good"),
    "admin.ask_duration": ("Bannir {name} pour combien de temps ? (30m, 2h, 7d ; vide : pour de "
                           "bon) Entrée pour bannir, Échap pour annuler",
                           "Ban {name} for how long? (30m, 2h, 7d; empty: for good) Enter to "
                           "ban, Escape to cancel"),
    "admin.ask_broadcast": ("Annonce à tous les joueurs (Entrée pour l'envoyer, Échap pour "
                            "annuler)", "A line to every player (Enter to send, Escape to "
                            "cancel)"),
    "admin.ask_motd": ("Message du jour, montré dans le salon (vide : le retirer)",
                       "Message of the day, shown in the lobby (empty: remove it)"),
    "admin.bad_duration": ("Une durée : 30m, 2h, 7d, ou rien pour toujours.",
                           "A duration: 30m, 2h, 7d, or nothing for good."),
    "admin.pick_session": ("Choisissez une session dans la liste.",
                           "Pick a session in the list."),
    "admin.pick_table": ("Choisissez une table dans la liste (Tab).",
                         "Pick a table in the list (Tab)."),
    "help.leave": ("quitter la table (en cours de partie, après confirmation : un robot prend "
                   "votre place)",
                   "leave the table (during a game, once confirmed: a bot takes your seat)"),
    "help.leave_watching": ("quitter la table que vous regardez",
                            "leave the table you are watching"),
    "help.start": ("lancer la partie (créateur ; des robots prennent les places libres)",
                   "start the game (creator; bots take the free seats)"),
    "help.quit": ("quitter Pioche (après confirmation)", "quit Pioche (once confirmed)"),
    "help.close_panel": ("fermer le résumé de la partie : le journal revient",
                         "close the game's summary: the log comes back"),
    "help.log_back": ("remonter dans le journal de la table (toute la partie ; aussi la "
                      "molette)", "go back through the table's log (the whole game; the "
                      "mouse wheel too)"),
    "help.log_forward": ("redescendre dans le journal (en bas, il suit les nouvelles lignes)",
                         "go forward in the log (at the bottom it follows new lines)"),
    "help.play": ("jouer la carte choisie (un Joker demande sa couleur)",
                  "play the chosen card (a Joker asks for its colour)"),
    "help.why": ("sur une carte qui ne peut pas être jouée : dire pourquoi",
                 "on a card that may not be played: say why"),
    "help.draw": ("piocher une carte", "draw a card"),
    "help.take": ("prendre les cartes en attente (cumul)", "take the pending cards (stacking)"),
    "help.pass": ("passer : plus rien à piocher ni à jouer",
                  "pass: nothing left to draw or play"),
    "help.keep": ("garder la carte piochée au lieu de la jouer",
                  "keep the drawn card instead of playing it"),
    "help.announce": ("jouer la carte choisie en annonçant sa dernière carte (option annonce)",
                      "play the chosen card announcing your last card (announce option)"),
    "help.catch": ("contrer un joueur qui n'a pas annoncé sa dernière carte : il pioche 2",
                   "catch a player who did not announce their last card: they draw 2"),
    "help.draw_a": ("piocher la carte du dessus de la pioche A",
                    "draw the top card of deck A"),
    "help.draw_b": ("piocher la carte du dessus de la pioche B",
                    "draw the top card of deck B"),
    "help.lock": ("verrouiller votre pile en début de tour : elle rejoint votre collection "
                  "(c'est tout le tour)",
                  "lock your pile at the start of your turn: it joins your collection "
                  "(that is the whole turn)"),
    "help.stop": ("vous arrêter après avoir pioché (votre pile reste, non verrouillée) ; "
                  "finir un tour passé",
                  "stop after drawing (your pile stays, unlocked); end a skipped turn"),
    "help.activate_held": ("activer la carte spéciale que vous venez de piocher (puis "
                           "choisir sa cible)",
                           "activate the special card you just drew (then choose its target)"),
    "help.reserve": ("mettre la carte spéciale piochée dans votre réserve (2 places)",
                     "put the special card you drew in your reserve (2 slots)"),
    "help.activate_reserve": ("activer la 1re ou la 2e carte de votre réserve (puis choisir "
                              "sa cible)",
                              "activate the 1st or 2nd card of your reserve (then choose its "
                              "target)"),
    "help.keep_pile": ("Shadow : la défausser et garder votre pile",
                       "Shadow: discard it and keep your pile"),
    "help.new_pile": ("Shadow : perdre votre pile, la Shadow en commence une nouvelle",
                      "Shadow: lose your pile, the Shadow starts a new one"),
    "help.joker": ("Shadow : jouer le Joker de votre réserve (la pile reste, vous continuez)",
                   "Shadow: play the Joker from your reserve (the pile stays, you go on)"),
    "help.tick": ("validation : cocher ou décocher la combinaison choisie",
                  "validation: tick or untick the chosen combination"),
    "help.confirm_choice": ("choisir l'option ; en validation, valider les combinaisons "
                            "cochées",
                            "choose the option; in validation, validate the ticked "
                            "combinations"),
    "help.best": ("validation : cocher le meilleur choix (le plus de points)",
                  "validation: tick the best choice (the most points)"),
    "help.compose": ("validation : composer une combinaison avec les cartes de votre choix",
                     "validation: make up a combination from the cards you choose"),
    "help.refuse_all": ("validation : ne rien valider cette manche",
                        "validation: validate nothing this round"),
    "help.cancel_choice": ("renoncer à jouer la carte", "give up playing the card"),
    # --- nickname ------------------------------------------------------------------------
    "nick.welcome": ("Bienvenue sur Pioche !", "Welcome to Pioche!"),
    "nick.intro": (
        "Deux jeux de cartes à jouer au clavier, contre des amis ou des robots : "
        "Défausse et Collection.",
        "Two card games played with the keyboard, against friends or bots: "
        "Défausse and Collection.",
    ),
    "nick.prompt": ("Votre pseudo :", "Your nickname:"),
    "nick.placeholder": ("pseudo", "nickname"),
    "nick.invalid": (
        "De 2 à 16 lettres (latines, accents permis), chiffres, _ . ou -, sans espace.",
        "2 to 16 letters (Latin, accents allowed), digits, _ . or -, no spaces.",
    ),
    "nick.hint": ("Entrée pour valider, Ctrl+Q pour partir.", "Enter to confirm, Ctrl+Q to leave."),
    # --- lobby ---------------------------------------------------------------------------
    "lobby.hello": ("Bonjour {name} !", "Hello {name}!"),
    "lobby.watch_only": (
        "Session spectateur : vous pouvez regarder les tables.",
        "Watch-only session: you can watch the tables.",
    ),
    "lobby.online": ("En ligne ({n})", "Online ({n})"),
    "lobby.chat": ("Discussion du salon", "Lobby chat"),
    "lobby.welcome": ("Bienvenue ! Aucune table pour l'instant.",
                      "Welcome! No tables yet."),
    "lobby.hint_quick": ("jouer tout de suite à {game} contre des robots",
                         "play {game} right now against bots"),
    "lobby.hint_new": ("créer une table : le jeu, les joueurs, les robots, les options",
                       "create a table: the game, the players, the bots, the options"),
    "lobby.hint_help": ("les règles et toutes les touches", "the rules and every key"),
    "lobby.col.id": ("Table", "Table"),
    "lobby.col.game": ("Jeu", "Game"),
    "lobby.col.players": ("Joueurs", "Players"),
    "lobby.col.seats": ("Places", "Seats"),
    "lobby.col.status": ("État", "Status"),
    "lobby.col.spectators": ("Spect.", "Watch"),
    "lobby.private": ("privée", "private"),
    "lobby.no_selection": ("Choisissez d'abord une table.", "Choose a table first."),
    "lobby.at_table": ("table {id}", "table {id}"),
    "lobby.watching": ("regarde", "watching"),
    "watcher.name": ("spectateur", "watcher"),
    "status.waiting": ("en attente", "waiting"),
    "status.playing": ("en cours", "playing"),
    "status.finished": ("terminée", "finished"),
    "status.closed": ("fermée", "closed"),
    "status.paused": ("en pause", "paused"),
    "chat.placeholder": (
        "Votre message, ou /help (Entrée : envoyer, Échap : revenir)",
        "Your message, or /help (Enter: send, Escape: back)",
    ),
    "chat.separator": (" : ", ": "),
    "chat.invite": ("c : discuter", "c: chat"),
    "chat.spectator": (" (spect.)", " (watching)"),
    "chat.private": (" (privé)", " (private)"),
    "chat.help": ("Les commandes de la discussion (vous seul lisez ceci) :",
                  "The chat's commands (only you read this):"),
    "chat.help.help": ("/help : cette liste", "/help: this list"),
    "chat.help.msg": ("/msg PSEUDO texte : un message privé à un joueur en ligne, lu de lui "
                      "seul", "/msg NAME text: a private message to a player online, read by "
                      "them alone"),
    "chat.help.me": ("/me action : une action, « * alice réfléchit »",
                     "/me action: an action, “* alice thinks”"),
    "chat.help.ignore": ("/ignore PSEUDO : ne plus lire ce joueur (pour cette session) ; "
                         "/ignore seul : qui vous ignorez",
                         "/ignore NAME: stop reading that player (for this session); "
                         "/ignore alone: whom you ignore"),
    "chat.help.unignore": ("/unignore PSEUDO : le lire de nouveau",
                           "/unignore NAME: read them again"),
    "chat.help.mention": ("@pseudo dans un message fait sonner ce joueur (une fois par 30 s "
                          "au plus) ; // au début : une ligne qui commence par /",
                          "@name in a message rings that player's bell (at most once in "
                          "30 s); // at the start: a line that starts with /"),
    "chat.usage.me": ("/me suivi de l'action : /me réfléchit", "/me and the action: /me thinks"),
    "chat.usage.msg": ("/msg, le pseudo, puis le message : /msg alice bonjour",
                       "/msg, the name, then the message: /msg alice hello"),
    "chat.usage.ignore": ("/ignore PSEUDO, ou /ignore seul pour la liste",
                          "/ignore NAME, or /ignore alone for the list"),
    "chat.usage.unignore": ("/unignore PSEUDO", "/unignore NAME"),
    "chat.unknown": ("Commande inconnue : {command}. /help les liste.",
                     "Unknown command: {command}. /help lists them."),
    "chat.ignored": ("Vous ignorez : {names}.", "You ignore: {names}."),
    "chat.ignored.none": ("Vous n'ignorez personne.", "You ignore nobody."),
    "chat.ignore.done": ("Vous ignorez {name} : ses messages ne vous parviennent plus.",
                         "You ignore {name}: their messages no longer reach you."),
    "chat.unignore.done": ("Vous lisez de nouveau {name}.", "You read {name} again."),
    # --- dialogs -------------------------------------------------------------------------
    "code.title": ("Table privée {id}", "Private table {id}"),
    "code.prompt": ("Le code de la table :", "The table's code:"),
    "code.empty": ("Tapez le code de la table.", "Type the table's code."),
    "confirm.yes": ("Oui (o)", "Yes (y)"),
    "confirm.no": ("Non (n)", "No (n)"),
    "confirm.keys": ("Entrée : le bouton en surbrillance · Échap : non",
                     "Enter: the highlighted button · Esc: no"),
    "confirm.leave": ("Quitter la partie ?", "Leave the game?"),
    "confirm.leave_seat": ("Votre place sera jouée par le robot jusqu'à la fin de la partie.",
                           "The bot will play your seat until the game ends."),
    "confirm.quit": ("Quitter Pioche ?", "Quit Pioche?"),
    "confirm.quit_seat": (
        "Votre place sera jouée par le robot. Reconnectez-vous dans les {delay} pour la "
        "reprendre.",
        "The bot will play your seat. Connect again within {delay} to take it back.",
    ),
    "confirm.quit_seat_guest": (
        "Votre place sera jouée par le robot. Pour la reprendre, dans les {delay} : {command}",
        "The bot will play your seat. To take it back, within {delay}: {command}",
    ),
    "confirm.quit_waiting": ("Votre place à la table {id} sera libérée.",
                             "Your seat at table {id} will be freed."),
    "confirm.minutes": ("{n}\u00a0min", "{n}\u00a0min"),  # (no line break inside)
    "confirm.seconds": ("{n}\u00a0s", "{n}\u00a0s"),
    # --- create a table ------------------------------------------------------------------
    "create.title": ("Nouvelle table", "New table"),
    "create.game": ("Jeu", "Game"),
    "create.seats": ("Joueurs", "Players"),
    "create.seat": ("Siège {n}", "Seat {n}"),
    "create.select": ("Choisir", "Select"),
    "create.you": ("vous", "you"),
    "create.human": ("place libre", "free seat"),
    "create.bot": ("robot {bot}", "{bot} bot"),
    "create.timer": ("Minuteur", "Timer"),
    "create.no_timer": ("aucun", "none"),
    "create.seconds": ("{n} s", "{n} s"),
    "create.private": ("Table privée (sur code)", "Private table (with a code)"),
    "create.options": ("Options", "Options"),
    "create.seats_hint": (
        "Les places libres attendent des joueurs ; à défaut, des robots les prennent au "
        "lancement.",
        "Free seats wait for players; at the start, bots take those still free.",
    ),
    "create.bad_number": ("{label} : un nombre de {low} à {high}.",
                          "{label}: a number from {low} to {high}."),
    "bot.basic": ("malin", "smart"),
    "bot.random": ("hasard", "random"),
    "bot.label": ("robot {bot}", "{bot} bot"),
    # options of the games
    "opt.target": ("Objectif (points)", "Target (points)"),
    "opt.annonce": ("Annonce de la dernière carte", "Announce the last card"),
    "opt.cumul": ("Cumul des +2 et des +4", "Stack +2 and +4"),
    "opt.pioche_jusqua_jouer": ("Piocher jusqu'à pouvoir jouer", "Draw until you can play"),
    "opt.mode": ("Mode", "Mode"),
    "opt.mode.classique": ("Classique", "Classic"),
    "opt.mode.decouverte": ("Découverte", "Discovery"),
    "optshort.target": ("{value} pts", "{value} pts"),
    "optshort.annonce": ("annonce", "announce"),
    "optshort.cumul": ("cumul", "stacking"),
    "optshort.pioche_jusqua_jouer": ("pioche+", "draw+"),
    "optshort.timer": ("{n} s", "{n} s"),
    "optshort.no_timer": ("sans minuteur", "no timer"),
    # --- help ----------------------------------------------------------------------------
    "help.title": ("Aide", "Help"),
    "help.keys": ("Touches", "Keys"),
    "help.col.key": ("Touche", "Key"),
    "help.col.action": ("Action", "Action"),
    "help.rules": ("Règles : {game}", "Rules: {game}"),
    "help.ctrl_q": ("quitter Pioche (après confirmation)", "quit Pioche (once confirmed)"),
    "help.tab": ("passer d'une zone à l'autre", "move between areas"),
    "help.escape": ("fermer une fenêtre, quitter la saisie", "close a window, leave the input"),
    # --- scores --------------------------------------------------------------------------
    "scores.board": ("Classement — {game}", "Leaderboard — {game}"),
    "scores.all": ("tous les jeux", "all games"),
    "scores.empty": ("Aucune partie terminée pour l'instant.", "No finished game yet."),
    "scores.empty_rated": ("Personne n'est encore classé à ce jeu.",
                           "Nobody is ranked at this game yet."),
    "scores.rated_note": (
        "Par cote (μ − 3σ, prudente), dès {n} parties classées. g : un autre jeu.",
        "By rating (μ − 3σ, conservative), from {n} rated games. g: another game.",
    ),
    "scores.all_note": ("Tous les jeux, par victoires (la cote est propre à chaque jeu).",
                        "All games, by wins (a rating belongs to one game)."),
    "scores.col.rank": ("#", "#"),
    "scores.col.name": ("Joueur", "Player"),
    "scores.col.rating": ("Cote", "Rating"),
    "scores.col.rated": ("Classées", "Rated"),
    "scores.col.games": ("Parties", "Games"),
    "scores.col.wins": ("Victoires", "Wins"),
    "scores.col.points": ("Points", "Points"),
    "scores.mine": ("Vos statistiques", "Your statistics"),
    "scores.none_mine": ("Vous n'avez pas encore fini de partie.",
                         "You have not finished a game yet."),
    "scores.stats": (
        "{games}, {wins}, {points} au total, meilleur score : {best}.",
        "{games}, {wins}, {points} in all, best score: {best}.",
    ),
    "scores.by_game": ("{game} : {games}, {wins}", "{game}: {games}, {wins}"),
    "scores.rating": (" · cote {rating} ({rated})", " · rating {rating} ({rated})"),
    "n.rated": ("{n} classée", "{n} rated"),
    "n.rated.many": ("{n} classées", "{n} rated"),
    "n.games": ("{n} partie", "{n} game"),
    "n.games.many": ("{n} parties", "{n} games"),
    "n.wins": ("{n} victoire", "{n} win"),
    "n.wins.many": ("{n} victoires", "{n} wins"),
    # --- profiles and replays (screens/profile.py, screens/replay.py) ---
    "key.profile": ("profils", "profiles"),
    "lobby.profiles": ("i : profils", "i: profiles"),
    "key.profile_open": ("voir le profil", "see the profile"),
    "key.replay": ("revoir", "replay"),
    "key.replay_mine": ("revoir avec mes cartes", "replay with my cards"),
    "key.replay_next": ("coup suivant", "next move"),
    "key.replay_back": ("coup précédent", "previous move"),
    "key.replay_round": ("manche", "round"),
    "key.replay_start": ("début", "start"),
    "key.replay_end": ("fin", "end"),
    "help.profile": ("le profil d'un joueur (résultats, cote, dernières parties)",
                     "a player's profile (results, rating, last games)"),
    "help.profile_board": ("le profil du joueur choisi", "the chosen player's profile"),
    "help.replay": ("revoir la partie choisie, comme un spectateur l'a vue",
                    "replay the chosen game, as a spectator saw it"),
    "help.replay_mine": ("revoir la partie choisie depuis votre place, avec vos cartes",
                         "replay the chosen game from your seat, with your cards"),
    "help.replay_next": ("un coup en avant", "one move on"),
    "help.replay_back": ("un coup en arrière", "one move back"),
    "help.replay_round_next": ("début de la manche suivante", "start of the next round"),
    "help.replay_round_back": ("début de la manche (ou de la précédente)",
                               "start of the round (or of the one before)"),
    "help.replay_start": ("la donne du début", "the opening deal"),
    "help.replay_end": ("la fin de la partie", "the end of the game"),
    "help.replay_close": ("fermer la partie revue", "close the replay"),
    "profile.pick": ("Voir le profil de…", "See the profile of…"),
    "profile.nobody": ("Personne à voir.", "Nobody to see."),
    "profile.none": (
        "« {name} » n'a pas de profil : un invité n'en a pas (seul un joueur venu avec une clé "
        "SSH garde ses résultats et sa cote).",
        "“{name}” has no profile: guests have none (only a player who comes with an SSH key "
        "keeps their results and rating).",
    ),
    "profile.no_games": ("{name} n'a pas encore fini de partie.",
                         "{name} has not finished a game yet."),
    "profile.chart": ("{game} : cote de {low} à {high}", "{game}: rating {low} to {high}"),
    "profile.last": ("Dernières parties", "Last games"),
    "profile.col.when": ("Fin", "Ended"),
    "profile.col.game": ("Jeu", "Game"),
    "profile.col.place": ("Place", "Place"),
    "profile.col.rated": ("Cote", "Rating"),
    "profile.place": ("{place} sur {seats}", "{place} of {seats}"),
    "profile.rated": ("classée", "rated"),
    "profile.unrated": ("non classée", "unrated"),
    "profile.log_gone": ("journal effacé", "log removed"),
    "profile.note": ("Entrée : revoir la partie, comme un spectateur l'a vue.",
                     "Enter: replay the game, as a spectator saw it."),
    "profile.note_mine": (
        "Entrée : revoir la partie comme un spectateur ; v : depuis votre place, avec vos "
        "cartes.",
        "Enter: replay the game as a spectator; v: from your seat, with your cards.",
    ),
    "replay.banner": ("Revue, vue de spectateur · coup {n}/{total} · → ← coups · "
                      "PgPréc/PgSuiv manches",
                      "Replay, as a spectator saw it · move {n}/{total} · → ← moves · "
                      "PgUp/PgDn rounds"),
    "replay.banner_seat": ("Revue depuis votre place · coup {n}/{total} · → ← coups · "
                           "PgPréc/PgSuiv manches",
                           "Replay from your seat · move {n}/{total} · → ← moves · "
                           "PgUp/PgDn rounds"),
    "refused.no_game": ("Aucune partie terminée sous ce numéro.",
                        "No finished game under that number."),
    "refused.replay_gone": (
        "Le journal de cette partie n'est plus gardé : seul son résultat reste.",
        "This game's log is no longer kept: only its result remains.",
    ),
    "refused.replay_unreadable": ("Le journal de cette partie est illisible.",
                                  "This game's log cannot be read."),
    "refused.not_your_seat": (
        "Seul le joueur de cette place peut voir la partie avec ses cartes.",
        "Only the player of that seat may see the game with its cards.",
    ),
    "refused.private_replay": ("Une table privée ne se revoit qu'entre ses joueurs.",
                               "A private table's game is replayed by its players only."),
    "refused.replay_long": ("Cette partie est trop longue pour être revue ici.",
                            "This game is too long to be replayed here."),
    "refused.no_step": ("Cette partie n'a pas ce coup.", "This game has no such move."),
    "scores.guest": (
        "Invité : vos résultats comptent sous votre pseudo depuis cette adresse, sans cote (une "
        "clé SSH classe vos parties).",
        "Guest: your results count under your nickname from this address, without a rating "
        "(an SSH key rates your games).",
    ),
    # --- a table (any game) --------------------------------------------------------------
    "table.header": ("{game} · table {id}", "{game} · table {id}"),
    "table.move": ("coup {n}", "move {n}"),
    "table.spectator": (
        "Vous regardez cette partie : aucune touche ne joue.",
        "You are watching this game: no key plays.",
    ),
    "table.waiting": ("En attente de joueurs", "Waiting for players"),
    "table.free_seats": ("{n} place libre", "{n} free seat"),
    "table.free_seats.many": ("{n} places libres", "{n} free seats"),
    "table.can_start": (
        "Entrée : lancer maintenant (des robots prennent les places libres).",
        "Enter: start now (bots take the free seats).",
    ),
    "table.wait_creator": ("{name} lancera la partie.", "{name} will start the game."),
    "table.code": ("Code de la table : {code} (à donner aux invités)",
                   "Table code: {code} (give it to your guests)"),
    "table.seat_free": ("— place libre —", "— free seat —"),
    "table.bot": ("robot", "bot"),
    "table.away": ("absent", "away"),
    "table.you": ("vous", "you"),
    "table.timer": ("{n} s", "{n} s"),
    "table.paused": ("EN PAUSE", "PAUSED"),
    "podium.title": ("Fin de la partie", "Game over"),
    "podium.rematch.asked": ("Revanche demandée par {names} : {n} s pour que tous "
                             "acceptent.",
                             "Rematch asked for by {names}: {n} s for everyone to accept."),
    "podium.rematch.asked_you": ("Revanche demandée par {names} : r pour accepter, Entrée "
                                 "pour refuser ({n} s).",
                                 "Rematch asked for by {names}: r to accept, Enter to "
                                 "decline ({n} s)."),
    "podium.rematch.off": ("Pas de revanche à cette table.", "No rematch at this table."),
    "podium.winner": ("{names} gagne !", "{names} wins!"),
    "podium.winners": ("{names} gagnent !", "{names} win!"),
    "podium.rank": ("{n}.", "{n}."),
    "podium.points": ("{n} pts", "{n} pts"),
    "podium.rated": ("Partie classée : la cote de chacun à ce jeu est à jour.",
                     "Rated game: everyone's rating at this game is updated."),
    "podium.unrated.bots": ("Partie non classée : contre des robots seulement.",
                            "Unrated game: against bots only."),
    "podium.unrated.guests": (
        "Partie non classée : il y faut deux joueurs avec une clé SSH (un invité n'est pas "
        "classé).",
        "Unrated game: it takes two players with an SSH key (a guest is not rated).",
    ),
    "podium.unrated.stand_in": (
        "Partie non classée : le robot a pris plus de la moitié des décisions d'un joueur.",
        "Unrated game: the stand-in made more than half of a player's decisions.",
    ),
    "podium.unrated.learn": ("Partie non classée : table d'apprentissage.",
                             "Unrated game: a learn table."),
    "podium.unrated.before": ("Partie non classée.", "Unrated game."),
    "and": ("et", "and"),
    # --- Défausse ------------------------------------------------------------------------
    "colour.0": ("rouge", "red"),
    "colour.1": ("jaune", "yellow"),
    "colour.2": ("vert", "green"),
    "colour.3": ("bleu", "blue"),
    "colour.letters": ("RJVB", "RYGB"),
    "kind.passe": ("Passe", "Skip"),
    "kind.inverse": ("Inverse", "Reverse"),
    "kind.plus2": ("+2", "+2"),
    "kind.joker": ("Joker", "Joker"),
    "kind.joker4": ("Joker +4", "Joker +4"),
    "card.coloured": ("{kind} {colour}", "{colour} {kind}"),
    "n.cards": ("{n} carte", "{n} card"),
    "n.cards.many": ("{n} cartes", "{n} cards"),
    "n.bots": ("{n} robot", "{n} bot"),
    "n.bots.many": ("{n} robots", "{n} bots"),
    "n.points": ("{n} pt", "{n} pt"),
    "n.points.many": ("{n} pts", "{n} pts"),
    "df.round": ("Manche {n}", "Round {n}"),
    "df.target": ("objectif {n}", "target {n}"),
    "df.direction.1": ("↻ sens horaire", "↻ clockwise"),
    "df.direction.-1": ("↺ sens inverse", "↺ anticlockwise"),
    "df.draw_pile": ("Pioche : {n}", "Draw pile: {n}"),
    "df.colour": ("Couleur : {colour}", "Colour: {colour}"),
    "df.no_colour": ("Couleur : à choisir", "Colour: to choose"),
    "df.pending": ("{n} cartes en attente", "{n} cards pending"),
    "df.announced": ("a annoncé", "announced"),
    "df.your_turn": ("À vous : jouez une carte levée (Entrée) ou piochez (d).",
                     "Your turn: play a raised card (Enter) or draw (d)."),
    "df.your_turn_no_play": ("À vous : aucune carte ne va, piochez (d).",
                             "Your turn: no card fits, draw (d)."),
    "df.pending_turn": (
        "À vous : répondez avec {answer} ou prenez les {n} cartes (d).",
        "Your turn: answer with {answer} or take the {n} cards (d).",
    ),
    "df.after_draw": ("Vous avez pioché {card} : Entrée pour la jouer, k pour la garder.",
                      "You drew {card}: Enter to play it, k to keep it."),
    "df.after_draw_keep": ("Vous avez pioché {card}, qui ne va pas : k pour la garder.",
                           "You drew {card}, which does not fit: k to keep it."),
    "df.your_turn_announce": (
        "Avant-dernière carte : jouez-la avec a pour l'annoncer, ou gare au contre !",
        "Second-to-last card: play it with a to announce it, or you may be caught!"),
    "df.after_draw_announce": ("Pioché : {card} — a pour la jouer en annonçant, k pour la "
                               "garder.",
                               "You drew {card}: a to play it and announce, k to keep it."),
    # Enter on a card that may not be played: which rule says no
    "df.why.turn": ("Pas encore : c'est au tour de {name}.", "Not yet: it is {name}'s turn."),
    "df.why.drawn": ("Après une pioche, seule la carte piochée ({card}) peut être jouée.",
                     "After drawing, only the drawn card ({card}) may be played."),
    "df.why.pending": ("{n} cartes en attente : seul un {answer} y répond, sinon prenez-les (d).",
                       "{n} cards pending: only a {answer} answers them, or take them (d)."),
    "df.why.joker4": ("Le Joker +4 se joue seulement sans carte de la couleur demandée "
                      "({colour}).",
                      "A Joker +4 may only be played with no card of the colour asked "
                      "({colour})."),
    "df.why.colour": ("{card} ne va pas : il faut du {colour} ou un Joker.",
                      "{card} does not fit: play {colour} or a Joker."),
    "df.why.match": ("{card} ne va pas : il faut du {colour}, {what} ou un Joker.",
                     "{card} does not fit: play {colour}, {what} or a Joker."),
    "df.why.number": ("un {n}", "a {n}"),
    "df.why.kind": ("une carte {kind}", "a {kind}"),
    "df.choose_colour": ("À vous de choisir la couleur de départ.",
                         "Choose the starting colour."),
    "df.nothing": ("À vous : rien à piocher et rien à jouer, passez (d).",
                   "Your turn: nothing to draw or play, pass (d)."),
    "df.turn_of": ("Au tour de {name}.", "{name}'s turn."),
    "df.can_catch": ("{name} n'a pas annoncé : x pour le contrer !",
                     "{name} did not announce: x to catch them!"),
    "df.over": ("Partie terminée.", "Game over."),
    "df.pick_colour": ("Quelle couleur ?", "Which colour?"),
    # Défausse's log: one sentence per action, its consequences joined with " — "
    "replay.bot_takes_over": ("un robot prend la place jusqu'à la fin",
                              "a bot takes the seat to the end"),
    "replay.end.finished": ("partie terminée", "game over"),
    "replay.end.closed": ("table fermée avant la fin", "table closed before the end"),
    "replay.scores": ("Scores", "Scores"),
    "replay.winners": ("Gagnant", "Winner"),
    "replay.unfinished": ("partie en cours après {n} coups", "game in progress after {n} moves"),
    "replay.torn": ("{n} octets d'un dernier coup coupé ignorés",
                    "{n} bytes of a torn last move ignored"),
    "ev.round": ("Manche {n} : {dealer} distribue.", "Round {n}: {dealer} deals."),
    "ev.flip": ("Première carte : {card}", "First card: {card}"),
    "ev.reshuffle": ("la défausse est remélangée ({n} cartes à piocher)",
                     "the discard is reshuffled ({n} cards to draw)"),
    "ev.skip": ("{name} passe son tour", "{name} loses a turn"),
    "ev.reverse": ("le sens change {arrow}", "the direction changes {arrow}"),
    "ev.play": ("{name} joue {card}", "{name} plays {card}"),
    "ev.play_wild": ("{name} joue {card}, couleur : {colour}",
                     "{name} plays {card}, colour: {colour}"),
    "ev.announce": ("{name} annonce sa dernière carte", "{name} announces their last card"),
    "ev.pass": ("{name} ne peut ni jouer ni piocher et passe",
                "{name} can neither play nor draw and passes"),
    "ev.draw": ("{name} pioche {cards}", "{name} draws {cards}"),
    "ev.drew": ("{name} pioche {cards} : {which}", "{name} draws {cards}: {which}"),
    "ev.keep": ("{name} garde la carte piochée", "{name} keeps the drawn card"),
    "ev.colour": ("{name} choisit la couleur : {colour}", "{name} picks the colour: {colour}"),
    "ev.catch": ("{catcher} contre {name}, qui n'a pas annoncé",
                 "{catcher} catches {name}, who did not announce"),
    "ev.round_end": ("{name} gagne la manche : +{gained} points",
                     "{name} wins the round: +{gained} points"),
    "ev.game_end": ("Partie terminée : {names} l'emporte avec {score} points.",
                    "Game over: {names} wins with {score} points."),
    # --- the table's own events, in every game's log (narrate.tell) ------------------------
    "tev.drop": ("{name} a perdu la connexion : le robot joue à sa place en attendant.",
                 "{name} lost their connection: the bot plays for them meanwhile."),
    "tev.drop_you": ("Vous avez perdu la connexion : le robot a joué à votre place.",
                     "You lost your connection: the bot played for you."),
    "tev.back": ("{name} est de retour.", "{name} is back."),
    "tev.back_you": ("Vous êtes de retour à votre place.", "You are back in your seat."),
    "tev.leave": ("{name} quitte la partie : le robot joue à sa place jusqu'à la fin.",
                  "{name} leaves the game: the bot plays for them to the end."),
    "tev.leave_you": ("Vous avez quitté la partie : le robot joue à votre place.",
                      "You left the game: the bot plays for you."),
    "tev.gone": ("{name} n'était pas de retour à temps : le robot garde sa place jusqu'à la fin.",
                 "{name} did not come back in time: the bot keeps their seat to the end."),
    "tev.gone_you": ("Vous n'étiez pas de retour à temps : le robot a gardé votre place.",
                     "You did not come back in time: the bot kept your seat."),
    "tev.timeout": ("Temps écoulé : le robot joue pour {name}.",
                    "Time's up: the bot plays for {name}."),
    "tev.timeout_you": ("Temps écoulé : le robot joue pour vous.",
                        "Time's up: the bot plays for you."),
    "log.below": ("↓ {n} ligne plus bas (Page↓)", "↓ {n} more line below (PgDn)"),
    "log.below.many": ("↓ {n} lignes plus bas (Page↓)", "↓ {n} more lines below (PgDn)"),
    "tev.stand_in_you": ("le robot a joué pour vous : {line}", "the bot played for you: {line}"),
    "tev.summary_hands": ("En main : {hands}", "In hand: {hands}"),
    "tev.summary_totals": ("Totaux : {totals}", "Totals: {totals}"),
    "tev.end": ("La partie s'arrête : {why}.", "The game ends: {why}."),
    "tev.end.target": ("{names} a atteint {target} points", "{names} reached {target} points"),
    "tev.end.target.many": ("{names} ont atteint {target} points",
                            "{names} reached {target} points"),
    "tev.end.single": ("la manche unique est jouée", "the single round is over"),
    "tev.end.complete": ("{names} a rempli sa feuille", "{names} filled their scorecard"),
    "tev.end.complete.many": ("{names} ont rempli leur feuille",
                              "{names} filled their scorecards"),
    "tev.end.rounds": ("{n} manche jouée", "{n} round played"),
    "tev.end.rounds.many": ("{n} manches jouées", "{n} rounds played"),
    # --- Collection ----------------------------------------------------------------------
    "colour.4": ("violet", "purple"),
    "col.letters": ("RJVBP", "RYGBP"),
    "col.card": ("{value} {colour}", "{colour} {value}"),
    "obj.1": ("Paire", "Pair"),
    "obj.2": ("Double paire", "Two pairs"),
    "obj.3": ("Brelan", "Three alike"),
    "obj.4": ("Petite suite", "Short run"),
    "obj.5": ("Full", "Full house"),
    "obj.6": ("Couleur", "Flush"),
    "obj.7": ("Grande suite", "Long run"),
    "obj.8": ("Carré", "Four alike"),
    "obj.9": ("Arc-en-ciel", "Rainbow run"),
    "obj.10": ("Suite pure", "Pure run"),
    "col.round": ("Manche {n}/{max}", "Round {n}/{max}"),
    "col.draw_pile": ("Pioche {pile} : {n}", "Deck {pile}: {n}"),
    "col.top": ("dessus", "top"),
    "col.risk": ("risque {p} %", "risk {p}%"),
    "col.risk_same": ("même risque : {p} %", "same risk: {p}%"),  # after both piles
    "col.discard": ("Défausse : {n}", "Discard: {n}"),
    "col.head.player": ("Joueur", "Player"),
    "col.head.pile": ("Pile", "Pile"),
    "col.head.reserve": ("Réserve", "Reserve"),
    "col.head.objectives": ("Objectifs", "Objectives"),
    "col.head.points": ("Pts", "Pts"),
    "col.head.collection": ("Collection", "Collection"),
    "col.your_pile": ("Votre pile : ", "Your pile: "),
    "col.pile_of": ("Pile de {name} : ", "{name}'s pile: "),
    "col.empty_pile": ("pile vide", "empty pile"),
    "col.danger": ("STOP si : ", "STOP on: "),
    "col.or": (" ou ", " or "),
    "col.danger.value": ("un {value}", "a {value}"),
    "col.danger.colour": ("un {colour} ({letter})", "a {colour} card ({letter})"),
    "col.safe": ("STOP si : aucune carte", "STOP on: no card"),  # as col.danger, and it fits
    "col.reserve": ("Réserve :", "Reserve:"),
    "col.drawn": ("Carte piochée : ", "Card drawn: "),
    "col.collection": ("Collection ({n}) : ", "Collection ({n}): "),
    "col.scorecard": ("Feuille : {done}/10, {points} pts", "Scorecard: {done}/10, {points} pts"),
    "col.turn_of": ("Au tour de {name}.", "{name}'s turn."),
    "col.other_shadow": ("{name} a pioché une Shadow et choisit.",
                         "{name} drew a Shadow and is choosing."),
    "col.other_special": ("{name} a pioché {card} : l'activer ou la garder ?",
                          "{name} drew {card}: play it or keep it?"),
    "col.other_quantique": ("{name} choisit parmi les {n} cartes du Quantique.",
                            "{name} is choosing among the Quantique's {n} cards."),
    "col.other_skip": ("{name} passe son tour et peut jouer une carte de sa réserve.",
                       "{name} loses a turn and may play a reserve card."),
    "col.draw_key": ("{letter} : pioche {pile}", "{letter}: deck {pile}"),
    "col.your_turn": ("À vous : piochez ({keys}) ou verrouillez votre pile (v).",
                      "Your turn: draw ({keys}) or lock your pile (v)."),
    "col.your_turn_empty": ("À vous : piochez ({keys}).", "Your turn: draw ({keys})."),
    "col.must_draw": ("Vous devez encore piocher {n} carte ({keys}).",
                      "You must draw {n} more card ({keys})."),
    "col.must_draw.many": ("Vous devez encore piocher {n} cartes ({keys}).",
                           "You must draw {n} more cards ({keys})."),
    "col.after_draw": ("Piochez encore ({keys}) ou arrêtez-vous (s) : la pile reste, "
                       "non verrouillée.",
                       "Draw again ({keys}) or stop (s): the pile stays, unlocked."),
    "col.flipped": ("Flip : voyez le dessus des pioches, puis piochez ({keys}) ou "
                    "arrêtez-vous (s).",
                    "Flip: see the top of each deck, then draw ({keys}) or stop (s)."),
    "col.shadow": ("Shadow ! k : la défausser, garder la pile · n : nouvelle pile avec elle",
                   "Shadow! k: discard it, keep the pile · n: new pile with it"),
    "col.shadow_joker": ("Shadow ! k : garder la pile · n : nouvelle pile · j : Joker",
                         "Shadow! k: keep the pile · n: new pile · j: Joker"),
    "col.special": ("Vous piochez {card} : e pour l'activer, r pour la réserver.",
                    "You drew {card}: e to play it, r to reserve it."),
    "col.special_full": ("{card}, réserve pleine : e pour l'activer, ou 1, 2 pour jouer "
                         "une carte de la réserve.",
                         "{card}, reserve full: e to play it, or 1, 2 to play a reserve card."),
    "col.quantique": ("Quantique : gardez une carte, ou aucune.",
                      "Quantique: keep one card, or none."),
    "col.skip": ("Tour passé : jouez une carte de la réserve (1, 2) ou finissez (s).",
                 "Turn lost: play a reserve card (1, 2) or end it (s)."),
    "col.choosing": ("Choisissez dans la liste (Échap : renoncer).",
                     "Choose from the list (Escape: give up)."),
    "col.validation": ("Fin de la manche : choisissez les combinaisons à valider.",
                       "End of the round: choose the combinations to validate."),
    "col.waiting": ("Validation : en attente de {names}.", "Validation: waiting for {names}."),
    "col.over": ("Partie terminée.", "Game over."),
    "col.ask_target": ("{card} : sur quel joueur ?", "{card}: on which player?"),
    "col.ask_swipe": ("Swipe : échanger votre pile avec celle de quel voisin ?",
                      "Swipe: swap your pile with which neighbour's?"),
    "col.ask_pile": ("Quantique : prendre 3 cartes de quelle pioche ?",
                     "Quantique: take 3 cards from which deck?"),
    "col.option_pile": ("Pioche {pile} ({cards})", "Deck {pile} ({cards})"),
    "col.quantique_title": ("Quantique : la carte à garder (vous seul la voyez)",
                            "Quantique: the card to keep (only you see them)"),
    "col.reserve_full": ("réserve pleine", "reserve full"),
    "col.keep_none": ("Aucune : tout défausser", "None: discard them all"),
    "col.validation_title": ("Validation — le meilleur choix vaut {points} pts",
                             "Validation — the best choice is worth {points} pts"),
    "col.ticked": ("Coché : {points} pts (Entrée : valider)",
                   "Ticked: {points} pts (Enter: validate)"),
    "col.compose_objective": ("Composer : pour quel objectif ? (Échap : revenir)",
                              "Compose: for which objective? (Escape: back)"),
    "col.compose_cards": ("Composer {objective} : cochez ses cartes (Espace), Entrée",
                          "Compose {objective}: tick its cards (Space), Enter"),
    "col.compose_count": ("Cochées : {points} carte(s)", "Ticked: {points} card(s)"),
    "col.compose_wrong": ("Ces cartes ne remplissent pas {objective}.",
                          "These cards do not fill {objective}."),
    "col.joker_waste": ("Le Joker ne sert que contre une Shadow : le jouer pour rien ?",
                        "The Joker only answers a Shadow: play it for nothing?"),
    "col.round_over": ("Fin de la manche {n} : points gagnés, total, validé",
                       "End of round {n}: points won, total, validated"),
    "col.sum.total": ("= {points:>3} pts, {done:>2}/10", "= {points:>3} pts, {done:>2}/10"),
    "col.sum.nothing": ("rien", "nothing"),
    "col.game_over": ("Partie terminée à la manche {round} : {names} l'emporte",
                      "Game over in round {round}: {names} wins"),
    "col.game_over.many": ("Partie terminée à la manche {round} : {names} l'emportent",
                           "Game over in round {round}: {names} win"),
    "col.legend": (
        "## Les cartes et les signes\n\n"
        "- `R3` : un 3 rouge (R rouge, J jaune, V vert, B bleu, P violet, pour pourpre) ; "
        "`◇` Rainbow ; `◆` Shadow.\n"
        "- Les cartes spéciales : `Jok` Joker, `Dbl` Double, `PTT` Passe Ton Tour, `Flip`, "
        "`Swp` Swipe, `Qtq` Quantique.\n"
        "- La ligne d'un joueur : `►` c'est son tour ; `⊘` un tour passé l'attend ; `+2` un "
        "Double l'attend (2 cartes à piocher par Double) ; Objectifs : le numéro de chaque "
        "objectif validé (`0` pour le 10e), `·` pour un objectif ouvert ; pendant la "
        "validation, `✓` : il a choisi.\n"
        "- Feuille : `✓` et les points d'un objectif validé ; en gris, ce que vaut un "
        "objectif encore ouvert.\n"
        "- « STOP si » : les cartes qui feraient perdre votre pile ; « risque » : la "
        "probabilité que la prochaine carte de chaque pioche le fasse, d'après les cartes que "
        "vous n'avez pas vues.",
        "## Cards and signs\n\n"
        "- `R3`: a red 3 (R red, Y yellow, G green, B blue, P purple); `◇` Rainbow; "
        "`◆` Shadow.\n"
        "- Special cards: `Jok` Joker, `Dbl` Double, `PTT` Passe Ton Tour (skip your turn), "
        "`Flip`, `Swp` Swipe, `Qtq` Quantique.\n"
        "- A player's row: `►` their turn; `⊘` a lost turn awaits them; `+2` a Double "
        "awaits them (2 cards to draw per Double); Objectives: the number of each objective "
        "validated (`0` for the 10th), `·` for an open one; during validation, `✓`: they "
        "have chosen.\n"
        "- Scorecard: `✓` and the points of a validated objective; dimmed, what an open "
        "objective is worth.\n"
        "- \"STOP on\": the cards that would lose your pile; \"risk\": the chance that the "
        "next card of each deck does, from the cards you have not seen.",
    ),
    # Collection's log
    "cev.round": ("Manche {n} : {name} commence.", "Round {n}: {name} starts."),
    "cev.draw": ("{name} pioche en {pile} : {card}", "{name} draws from {pile}: {card}"),
    "cev.rainbow": ("{name} pioche en {pile} : Rainbow, et repioche",
                    "{name} draws from {pile}: a Rainbow, and draws again"),
    "cev.bust_value": ("deux {value} de suite : pile perdue ({cards})",
                       "two {value}s in a row: pile lost ({cards})"),
    "cev.bust_colour": ("trois {colour} de suite : pile perdue ({cards})",
                        "three {colour} in a row: pile lost ({cards})"),
    "cev.stop": ("{name} s'arrête", "{name} stops"),
    "cev.lock": ("{name} verrouille sa pile : {cards}", "{name} locks their pile: {cards}"),
    "cev.reserve": ("{name} met {card} en réserve", "{name} puts {card} in reserve"),
    "cev.shadow_discard": ("{name} défausse la Shadow et garde sa pile",
                           "{name} discards the Shadow and keeps their pile"),
    "cev.shadow_new_pile": ("{name} perd sa pile ({cards}) : la Shadow en commence une nouvelle",
                            "{name} loses their pile ({cards}): the Shadow starts a new one"),
    "cev.shadow_starts": ("{name} commence une nouvelle pile avec la Shadow",
                          "{name} starts a new pile with the Shadow"),
    "cev.joker": ("{name} joue le Joker contre la Shadow et continue",
                  "{name} plays the Joker against the Shadow and goes on"),
    "cev.keep": ("{name} garde {card}", "{name} keeps {card}"),
    "cev.keep_none": ("{name} ne garde aucune carte", "{name} keeps no card"),
    "cev.activate": ("{name} joue {card}", "{name} plays {card}"),
    "cev.activate_target": ("{name} joue {card} sur {target}",
                            "{name} plays {card} on {target}"),
    "cev.activate_quantique": ("{name} joue Quantique sur la pioche {pile}",
                               "{name} plays Quantique on deck {pile}"),
    "cev.swipe": ("{name} joue Swipe et échange sa pile avec celle de {target}",
                  "{name} plays Swipe and swaps piles with {target}"),
    "cev.no_effect": ("{name} joue {card}, sans effet", "{name} plays {card}, to no effect"),
    "cev.flip": ("{name} regarde le dessus des deux pioches",
                 "{name} looks at the top of both decks"),
    "cev.flip_seen": ("dessus de A : {a}, de B : {b}", "top of A: {a}, of B: {b}"),
    "cev.empty": ("vide", "empty"),
    "cev.quantique": ("{n} carte prise", "{n} card taken"),
    "cev.quantique.many": ("{n} cartes prises", "{n} cards taken"),
    "cev.quantique_seen": ("{n} carte prise : {which}", "{n} card taken: {which}"),
    "cev.quantique_seen.many": ("{n} cartes prises : {which}", "{n} cards taken: {which}"),
    "cev.lost": ("{name} perd sa pile non verrouillée ({cards})",
                 "{name} loses their unlocked pile ({cards})"),
    "cev.round_end": ("Fin de la manche {n} : les pioches sont vides, place à la validation.",
                      "End of round {n}: the decks are empty, time to validate."),
    "cev.validated": ("{name} a fait son choix", "{name} has chosen"),
    "cev.validate": ("{name} valide {what}", "{name} validates {what}"),
    "cev.validate_none": ("{name} ne valide rien", "{name} validates nothing"),
    "cev.game_end": ("Partie terminée : {names} l'emporte.", "Game over: {names} wins."),
    "cev.game_end.many": ("Partie terminée : {names} l'emportent.", "Game over: {names} win."),
    # --- « Apprendre » (learn by playing): the lobby's dialog and the table's lines ---------
    # One explanation per situation (pioche_tui/app/learn.py says when), at most two lines
    # once wrapped at 78 cells (tests/app/test_learn.py); each checked against docs/rules/ and
    # the engines.
    "key.learn": ("apprendre", "learn"),
    "help.learn": ("apprendre en jouant : une table contre des robots qui explique chaque "
                   "situation",
                   "learn by playing: a table against bots that explains each situation"),
    "lobby.hint_learn": ("apprendre en jouant : Collection ou Défausse, expliqués pas à pas",
                         "learn by playing: Collection or Défausse, explained step by step"),
    "status.learning": ("apprend", "learning"),
    "key.learn_reset": ("tout revoir", "see all again"),
    "help.learn_collection": ("apprendre Collection contre deux robots",
                              "learn Collection against two bots"),
    "help.learn_defausse": ("apprendre Défausse contre deux robots",
                            "learn Défausse against two bots"),
    "help.learn_hints": ("afficher ou couper les explications",
                         "show or hide the explanations"),
    "help.learn_reset": ("remontrer les explications déjà vues",
                         "show the explanations already seen again"),
    "learn.title": ("Apprendre en jouant", "Learn by playing"),
    "learn.intro": (
        "Une table contre deux robots, sans minuteur. La première fois que chaque situation "
        "se présente, une ligne explique ce qui se passe et ce que veulent dire vos choix. "
        "Elle ne joue jamais à votre place, et la partie ne compte pas dans les scores.",
        "A table against two bots, with no timer. The first time each situation comes up, "
        "a line explains what is happening and what your choices mean. It never plays for "
        "you, and the game does not count in the scores.",
    ),
    "learn.hints_on": ("Explications : oui (e pour les couper).",
                       "Explanations: on (e turns them off)."),
    "learn.hints_off": ("Explications : non (e pour les remettre).",
                        "Explanations: off (e turns them on)."),
    "learn.seen": ("Déjà vues : {n} (elles ne reviennent pas).",
                   "Already seen: {n} (they do not come back)."),
    "learn.table_on": ("Explications affichées (h pour les couper).",
                       "Explanations shown (h turns them off)."),
    "learn.table_off": ("Explications coupées (h pour les remettre).",
                        "Explanations off (h brings them back)."),
    "key.hints": ("explications", "explanations"),
    "help.hints": ("table d'apprentissage : afficher ou couper les explications",
                   "learn table: show or hide the explanations"),
    "learn.col.first_draw": (
        "Piochez en A ou B (a, b) : une carte de couleur rejoint votre pile, visible de tous. "
        "Une pile ne compte qu'une fois verrouillée (v, en début de tour).",
        "Draw from deck A or B (a, b): a coloured card joins your pile, which all can see. "
        "A pile only counts once it is locked (v, at the start of a turn).",
    ),
    "learn.col.draw_again": (
        "Encore une carte (a, b), ou stop (s) : la pile reste devant vous, pas à l'abri ; au "
        "début de votre prochain tour, v la verrouille dans votre collection.",
        "Draw again (a, b), or stop (s): your pile stays in front of you, not yet safe; at the "
        "start of your next turn, v locks it into your collection.",
    ),
    "learn.col.risk": (
        "Deux cartes de même valeur ou trois de même couleur à la suite : pile perdue. "
        "« STOP si » les nomme ; « risque » : la chance que ce soit la suivante.",
        "Two cards of one value, or three of one colour, in a row: the pile is lost. "
        "\"STOP on\" names those cards; \"risk\" is the chance the next card is one.",
    ),
    "learn.col.bust": (
        "Pile perdue : ses cartes sont défaussées. Seule une pile verrouillée est à l'abri.",
        "Pile lost: its cards are discarded. Only a locked pile is safe.",
    ),
    "learn.col.lock": (
        "v verrouille votre pile : elle rejoint votre collection, et c'est tout le tour. Ou "
        "piochez (a, b) pour la grossir, au risque de la perdre.",
        "v locks your pile: it joins your collection, and that is your whole turn. Or draw (a, "
        "b) to make it bigger, at the risk of losing it.",
    ),
    "learn.col.collection": (
        "Votre collection : les piles verrouillées. En fin de manche, elle remplit vos objectifs "
        "(listés à droite).",
        "Your collection: the piles you locked. At the end of the round it fills your objectives "
        "(the scorecard, on the right).",
    ),
    "learn.col.rainbow": (
        "Rainbow : ni couleur ni valeur, elle coupe les suites ; repiochez aussitôt (a, b).",
        "Rainbow: no colour, no value, it breaks a run; draw again at once (a, b).",
    ),
    "learn.col.shadow": (
        "Shadow ! k : la défausser, votre pile reste · n : perdre la pile, la Shadow en commence "
        "une nouvelle. Dans les deux cas, votre tour finit.",
        "Shadow! k: discard it, your pile stays · n: lose your pile, the Shadow starts a new "
        "one. Either way, your turn ends.",
    ),
    "learn.col.shadow_joker": (
        "Shadow ! j : le Joker l'annule, vous continuez · k : la défausser, pile gardée · "
        "n : pile perdue, la Shadow en commence une ; k et n finissent le tour.",
        "Shadow! j: the Joker cancels it and you go on · k: discard it, the pile stays · "
        "n: the pile is lost, the Shadow starts a new one; k and n end your turn.",
    ),
    "learn.col.joker": (
        "Joker : gardez-le en réserve. Contre une Shadow que vous piochez, j l'annule : la pile "
        "reste et le tour continue. Joué à un autre moment, il ne fait rien.",
        "Joker: keep it in reserve. Against a Shadow you draw, j cancels it: the pile stays and "
        "your turn goes on. Played at any other time, it does nothing.",
    ),
    "learn.col.double": (
        "Double : le joueur visé ne pourra pas verrouiller à son prochain tour, et devra y "
        "piocher au moins 2 cartes.",
        "Double: the player you aim at cannot lock on their next turn, and must draw at least 2 "
        "cards in it.",
    ),
    "learn.col.passe": (
        "Passe Ton Tour : le joueur visé passe son prochain tour (ni pioche ni verrou).",
        "Passe Ton Tour: the player you aim at loses their next turn (no draw, no lock).",
    ),
    "learn.col.flip": (
        "Flip : vous seul voyez le dessus des deux pioches, puis vous piochez encore une carte "
        "ou vous vous arrêtez (s).",
        "Flip: you alone see the top card of both decks, then you draw once more or stop (s).",
    ),
    "learn.col.swipe": (
        "Swipe : échangez votre pile avec celle d'un voisin (ses cartes non verrouillées) ; "
        "aucun STOP n'est vérifié sur les piles échangées.",
        "Swipe: swap your pile with a neighbour's (the cards they have not locked); no STOP is "
        "checked on the swapped piles.",
    ),
    "learn.col.quantique": (
        "Quantique : prenez jusqu'à 3 cartes d'une pioche, que vous seul voyez ; gardez-en une "
        "ou aucune, le reste est défaussé. Puis votre tour finit.",
        "Quantique: take up to 3 cards from a deck, which only you see; keep one or none, the "
        "rest is discarded. Then your turn ends.",
    ),
    "learn.col.quantique_keep": (
        "Vous seul les voyez. Celle que vous gardez va sur votre pile (STOP vérifié ; une "
        "Shadow : son choix) ou, spéciale, en réserve ; les autres sont défaussées.",
        "Only you see these cards. The one you keep goes on your pile (STOP checked; a "
        "Shadow: its choice) or, a special card, in reserve; the others are discarded.",
    ),
    "learn.col.reserve_full": (
        "Réserve pleine : jouez la nouvelle carte (e), ou une de la réserve (1, 2) : la nouvelle "
        "prend alors sa place.",
        "Reserve full: play the new card (e), or one from your reserve (1, 2): the new card then "
        "takes its slot.",
    ),
    "learn.col.reserve": (
        "Réserve : 2 places. Pendant votre tour, 1 ou 2 joue la carte de cette place.",
        "Reserve: 2 slots. During your turn, 1 or 2 plays the card in that slot.",
    ),
    "learn.col.skipped": (
        "Tour passé : ni pioche ni verrou ; un Double, une Passe Ton Tour ou un Swipe de votre "
        "réserve peut encore servir (1, 2). s finit le tour.",
        "Turn lost: no draw, no lock; a Double, Passe Ton Tour or Swipe from your reserve may "
        "still be played (1, 2). s ends the turn.",
    ),
    "learn.col.skip_waits": (
        "On vous a joué Passe Ton Tour (⊘) : vous passerez votre prochain tour.",
        "Someone played Passe Ton Tour on you (⊘): you will lose your next turn.",
    ),
    "learn.col.doubled": (
        "On vous a joué un Double (+2) : à votre prochain tour, pas de verrou, et au moins 2 "
        "cartes à piocher.",
        "Someone played a Double on you (+2): on your next turn, no lock, and at least 2 cards "
        "to draw.",
    ),
    "learn.col.must_draw": (
        "Double : pas de verrou ce tour ; piochez les cartes dues (a, b) avant de pouvoir vous "
        "arrêter. Une pile perdue ou une Shadow annule le reste.",
        "Double: no lock this turn; draw the cards you owe (a, b) before you may stop. A lost "
        "pile or a Shadow cancels the rest.",
    ),
    "learn.col.swiped": (
        "Un voisin a joué Swipe : il a échangé sa pile contre la vôtre.",
        "A neighbour played Swipe: they swapped their pile for yours.",
    ),
    "learn.col.validation": (
        "Cochez (Espace) les combinaisons à valider, puis Entrée. Une carte ne sert qu'une fois "
        "; un objectif validé l'est pour la partie ; le reste est défaussé.",
        "Tick (Space) the combinations to validate, then Enter. A card serves only once; a "
        "validated objective stays for the game; the rest is discarded.",
    ),
    "learn.col.lost": (
        "Fin de manche : une pile non verrouillée est perdue ; seule la collection compte.",
        "End of the round: an unlocked pile is lost; only your collection counts.",
    ),
    "learn.col.others": (
        "Les robots jouent chacun leur tour (►) ; le journal dit ce qu'ils font.",
        "The bots play in turn (►); the log says what they do.",
    ),
    "learn.col.over": (
        "Partie finie. Une table d'apprentissage ne compte pas dans les scores.",
        "Game over. A learn table does not count in the scores.",
    ),
    "learn.df.first_turn": (
        "Posez une carte levée (←, →, Entrée) : même couleur, ou même chiffre ou symbole que la "
        "carte du dessus. Le premier à vider sa main gagne la manche.",
        "Play a raised card (←, →, Enter): the same colour, or the same number or symbol as the "
        "top card. The first to empty their hand wins the round.",
    ),
    "learn.df.unplayable": (
        "Cartes baissées : ni la couleur demandée, ni le chiffre ou le symbole du dessus. Le "
        "Joker +4 attend que vous n'ayez plus la couleur demandée.",
        "Lowered cards do not fit: neither the colour asked nor the number or symbol on top. A "
        "Joker +4 waits until you hold none of the colour asked.",
    ),
    "learn.df.no_play": (
        "Aucune carte ne va : piochez (d). Si la carte piochée va, vous pourrez la poser.",
        "No card fits: draw (d). If the card you draw fits, you may play it.",
    ),
    "learn.df.drawn": (
        "Carte piochée : Entrée la pose si elle va, k la garde ; puis le tour passe.",
        "Card drawn: Enter plays it if it fits, k keeps it; then the turn passes.",
    ),
    "learn.df.passe": (
        "Passe (⊘) : le joueur suivant perd son tour.",
        "Skip (⊘): the next player loses their turn.",
    ),
    "learn.df.inverse": (
        "Inverse (⇄) : le sens du jeu change ; à deux joueurs, elle fait comme une Passe.",
        "Reverse (⇄): the direction of play changes; with two players it acts as a Skip.",
    ),
    "learn.df.plus2": (
        "+2 : le joueur suivant pioche 2 cartes et perd son tour.",
        "+2: the next player draws 2 cards and loses their turn.",
    ),
    "learn.df.joker": (
        "Joker (★) : se pose sur n'importe quelle carte ; qui le pose choisit la couleur.",
        "Joker (★): goes on any card; whoever plays it chooses the colour.",
    ),
    "learn.df.opening_joker": (
        "La manche s'ouvre sur un Joker : à vous de choisir la couleur demandée.",
        "The round opens on a Joker: you choose the colour asked.",
    ),
    "learn.df.joker4": (
        "Joker +4 (★+4) : seulement sans carte de la couleur demandée ; le suivant pioche 4 "
        "cartes et perd son tour, et qui le pose choisit la couleur.",
        "Joker +4 (★+4): only when you hold none of the colour asked; the next player draws 4 "
        "and loses their turn, and whoever plays it chooses the colour.",
    ),
    "learn.df.round_end": (
        "Le gagnant de la manche marque les cartes des autres mains (chiffre : sa valeur, "
        "symbole : 20, Joker : 50). Le premier à {target} points gagne.",
        "The round's winner scores the cards left in the other hands (a number: its value, a "
        "symbol: 20, a Joker: 50). The first to {target} points wins.",
    ),
    "learn.df.last_card": (
        "Plus qu'une carte : posez-la pour gagner la manche.",
        "One card left: play it to win the round.",
    ),
    "learn.df.others": (
        "Les robots jouent chacun leur tour (►) ; le journal dit ce qu'ils posent.",
        "The bots play in turn (►); the log says what they play.",
    ),
    "learn.df.over": (
        "Partie finie : {target} points atteints. Une table d'apprentissage ne compte pas dans "
        "les scores.",
        "Game over: {target} points reached. A learn table does not count in the scores.",
    ),
    # --- refusals (the coordinator's codes) and notices ----------------------------------
    "refused.name_taken": ("Ce pseudo est déjà en ligne.", "That nickname is already online."),
    "refused.name_owned": ("Ce pseudo appartient à un autre joueur.",
                           "That nickname belongs to another player."),
    "refused.unknown_game": ("Jeu inconnu.", "Unknown game."),
    "refused.no_table": ("Cette table n'existe plus.", "That table is gone."),
    "refused.bad_name": ("Un pseudo : de 2 à 16 lettres, chiffres, _ . ou -.",
                         "A nickname: 2 to 16 letters, digits, _ . or -."),
    "refused.watch_only": ("Session spectateur : vous pouvez regarder, pas jouer.",
                           "Watch-only session: you can watch, not play."),
    "refused.already_seated": ("Quittez d'abord votre table.", "Leave your table first."),
    "refused.seats": ("Nombre de joueurs impossible pour ce jeu.",
                      "This game cannot be played by that many players."),
    "refused.bad_options": ("Options refusées : {detail}", "Options refused: {detail}"),
    "refused.timer": ("Le minuteur va de 10 à 600 secondes.", "The timer goes from 10 to 600 s."),
    "refused.bad_seat": ("Siège impossible pour un robot.", "No such seat for a bot."),
    "refused.bad_bot": ("Robot inconnu.", "Unknown bot."),
    "refused.code": ("Cette table est privée : il faut son code.",
                     "This table is private: you need its code."),
    "refused.started": ("La partie a déjà commencé ; vous pouvez la regarder.",
                        "The game has started; you can watch it."),
    "refused.full": ("La table est complète.", "The table is full."),
    "refused.seat_taken": ("Ce siège n'est pas libre.", "That seat is taken."),
    "refused.not_seated": ("Vous n'êtes assis à aucune table.", "You are not seated at a table."),
    "refused.not_creator": ("Seul le créateur de la table peut la lancer.",
                            "Only the table's creator can start it."),
    "refused.not_playing": ("La partie n'est pas en cours.", "The game is not in progress."),
    "refused.stale": ("Trop tard : la table a changé entre-temps.",
                      "Too late: the table changed meanwhile."),
    "refused.not_your_turn": ("Ce n'est pas à vous de jouer.", "It is not your turn."),
    "refused.illegal": ("Coup refusé : {detail}", "Move refused: {detail}"),
    "refused.storage": (
        "Le serveur ne peut rien enregistrer pour le moment (disque plein ?) ; réessayez.",
        "The server cannot store anything for now (disk full?); try again.",
    ),
    "refused.store_read": (
        "Le serveur ne peut pas lire ses données pour le moment ; réessayez dans un instant.",
        "The server cannot read its data right now; try again in a moment.",
    ),
    "refused.paused": (
        "Table en pause : ce coup n'est pas pris ; rejouez quand elle reprendra.",
        "Table paused: that move was not taken; play it again when the table resumes.",
    ),
    "refused.stopped": (
        "La table est arrêtée : le serveur ne peut plus lire sa partie. Elle reviendra au "
        "prochain démarrage du serveur.",
        "The table is stopped: the server can no longer read its game. It will be back when "
        "the server next starts.",
    ),
    "refused.tables_player": (
        "Trop de tables créées en une minute ({n} au plus) : vous pourrez en créer une autre "
        "dans {wait} s.",
        "Too many tables created within a minute (at most {n}): you may create another in "
        "{wait} s."),
    "refused.tables_address": (
        "Trop de tables créées en une minute depuis votre adresse ({n} au plus) : vous pourrez "
        "en créer une autre dans {wait} s.",
        "Too many tables created within a minute from your address (at most {n}): you may "
        "create another in {wait} s."),
    "refused.empty": ("Message vide.", "Empty message."),
    "refused.chat_rate": ("Doucement : 3 messages toutes les 3 secondes au plus.",
                          "Easy: at most 3 messages every 3 seconds."),
    "refused.chat_rate_address": (
        "Doucement : 6 messages toutes les 3 secondes au plus depuis votre adresse.",
        "Easy: at most 6 messages every 3 seconds from your address."),
    "refused.not_online": ("{name} n'est pas en ligne.", "{name} is not online."),
    "refused.msg_self": ("C'est vous : un message privé va à un autre joueur.",
                         "That is you: a private message goes to another player."),
    "refused.msg_watcher": ("{name} regarde seulement les tables : pas de message privé.",
                            "{name} only watches the tables: no private message."),
    "refused.ignore_self": ("C'est vous : on n'ignore que les autres.",
                            "That is you: only others can be ignored."),
    "refused.ignore_full": ("Vous ignorez déjà {n} joueurs : /unignore d'abord.",
                            "You already ignore {n} players: /unignore first."),
    "refused.not_ignored": ("Vous n'ignorez pas {name}.", "You do not ignore {name}."),
    "notice.shutdown": ("Le serveur s'arrête. À bientôt !", "The server is stopping. See you!"),
    "farewell.resume": ("Pour reprendre votre place : {command}",
                        "To take your seat back: {command}"),
    "notice.replaced": ("Vous vous êtes connecté ailleurs.", "You connected from elsewhere."),
    "notice.kicked": ("Un administrateur a fermé votre session.",
                      "An administrator closed your session."),
    "notice.table_closed": ("Un administrateur a fermé cette table : la partie est abandonnée.",
                            "An administrator closed this table: the game is abandoned."),
    "notice.broadcast": ("Annonce du serveur", "Server announcement"),
    "refused.replay_rate": ("Doucement : attendez quelques secondes avant de revoir la suite.",
                            "Slow down: wait a few seconds before replaying more."),
    "refused.not_admin": ("Réservé aux administrateurs du serveur.",
                          "For the server's administrators only."),
    "refused.not_finished": ("La partie n'est pas finie.", "The game is not over."),
    "refused.rematch_learn": ("Pas de revanche à une table d'apprentissage.",
                              "No rematch at a learn table."),
    "refused.rematch_off": ("La revanche n'aura pas lieu à cette table.",
                            "There will be no rematch at this table."),
    "refused.rematch_gone": ("{name} a quitté la table : pas de revanche.",
                             "{name} left the table: no rematch."),
    "notice.rematch_left": ("La revanche n'aura pas lieu : un joueur est parti.",
                            "No rematch: a player left."),
    "notice.rematch_timeout": ("La revanche n'aura pas lieu : le temps est écoulé.",
                               "No rematch: the time ran out."),
    "notice.reclaimed": ("Vous retrouvez votre place.", "You are back in your seat."),
    "notice.reconnecting": ("Connexion au serveur perdue : reconnexion…",
                            "Connection to the server lost: reconnecting…"),
    "notice.reconnected": ("Reconnecté au serveur.", "Reconnected to the server."),
    "notice.connecting": ("Connexion au serveur…", "Connecting to the server…"),
    "notice.unreachable": (
        "Le serveur est injoignable : reconnectez-vous dans un instant.",
        "The server cannot be reached: reconnect in a moment."),
    "notice.coordinator_lost": (
        "Le serveur redémarre : reconnectez-vous dans un instant.",
        "The server is restarting: reconnect in a moment."),
    "refused.unavailable": ("Le serveur ne répond pas ; réessayez dans un instant.",
                            "The server is not answering; try again in a moment."),
    "refused.wire_version": (
        "Le serveur est en cours de mise à jour : réessayez dans quelques minutes.",
        "The server is being upgraded: try again in a few minutes."),
    "refused.name_held": ("Ce pseudo garde la place d'un joueur parti, à la table {table}.",
                          "That nickname keeps the seat of a player who left, at table {table}."),
    "refused.resume_limit": ("Trop d'essais de reprise depuis votre adresse : réessayez dans "
                             "une minute.",
                             "Too many resume attempts from your address: try again in a "
                             "minute."),
    "refused.resume_unknown": ("Ce code ne garde aucune place : la partie est finie, ou le délai "
                               "pour revenir est passé.",
                               "That code keeps no seat: the game is over, or the time to come "
                               "back has passed."),
    # --- a guest's way back to their seat --------------------------------------------------
    "resume.title": ("{command} : pour revenir si la connexion tombe",
                     "{command}: to come back if the connection drops"),
    "resume.notice": ("Invité : si la connexion tombe, seule cette commande vous rend votre "
                      "place. Notez-la : {command}",
                      "Guest: if the connection drops, only this command gives your seat back. "
                      "Note it: {command}"),
    "notice.timeout": ("Temps écoulé : le robot joue ce tour pour vous.",
                       "Time is up: the bot plays this turn for you."),
    "notice.paused": (
        "La table est en pause : le serveur ne peut plus enregistrer la partie (disque plein "
        "ou en panne). Elle reprendra d'elle-même.",
        "The table is paused: the server can no longer record the game (disk full or "
        "failing). It will resume by itself.",
    ),
    "notice.resumed": ("La table reprend : le serveur enregistre de nouveau la partie.",
                       "The table resumes: the server records the game again."),
    "notice.stopped": (
        "La table est arrêtée : le serveur ne peut plus lire sa partie. Elle reviendra au "
        "prochain démarrage du serveur.",
        "The table is stopped: the server can no longer read its game. It will be back when "
        "the server next starts.",
    ),
    # --- the player's settings ---------------------------------------------------------------
    "help.settings": ("vos réglages : la langue, les couleurs, la sonnerie et le titre à "
                      "votre tour", "your settings: language, colours, the bell and the title "
                      "on your turn"),
    "settings.title": ("Réglages", "Settings"),
    "settings.lang": ("Langue", "Language"),
    "settings.colours": ("Couleurs", "Colours"),
    "settings.bell": ("Sonnerie à votre tour", "Bell on your turn"),
    "settings.title_line": ("Titre « À vous »", 'Title "Your turn"'),
    "settings.lang.fr": ("Français", "Français"),
    "settings.lang.en": ("English", "English"),
    "settings.colours.auto": ("auto ({depth})", "auto ({depth})"),
    "settings.depth.truecolor": ("millions", "millions"),
    "settings.depth.256": ("256", "256"),
    "settings.depth.16": ("16", "16"),
    "settings.depth.none": ("aucune", "none"),
    "settings.hint": (
        "Gardés pour votre clé (pour cette session si vous êtes invité). La langue change "
        "en fermant cette fenêtre.",
        "Kept for your key (for this session if you are a guest). The language changes when "
        "this window closes.",
    ),
    "settings.not_kept": ("Réglages appliqués, mais pas enregistrés (le serveur n'a pas pu "
                          "les écrire).", "Settings applied, but not saved (the server could "
                          "not write them)."),
    "title.your_turn": ("À vous — Pioche", "Your turn — Pioche"),
    "notice.watching_again": ("Vous retrouvez la table que vous regardiez.",
                              "You are back at the table you were watching."),
}
"""key → (French, English). Every key has both; tests check the templates' fields agree."""


def pick_lang(value: str | None) -> str:
    """"en" for a value starting with "en" (``en_GB.UTF-8``, ``en``), else "fr"."""
    return "en" if value and value.strip().lower().startswith("en") else "fr"


def lang_from_env(env: Mapping[str, str]) -> str:
    """The language a client's locale asks for: the first set of LC_ALL, LC_MESSAGES, LANG."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            return pick_lang(value)
    return "fr"


class Catalogue:
    """The messages in one language."""

    __slots__ = ("_index", "lang")

    def __init__(self, lang: str = "fr") -> None:
        self.lang = lang if lang in LANGS else "fr"
        self._index = LANGS.index(self.lang)

    def __call__(self, key: str, **params: Any) -> str:
        template = MESSAGES[key][self._index]
        return template.format(**params) if params else template

    def count(self, key: str, n: int, **params: Any) -> str:
        """``key`` for one, ``key.many`` for more (French says "0 carte", English "0 cards")."""
        one = n == 1 or (n == 0 and self.lang == "fr")
        return self(key if one else f"{key}.many", n=n, **params)

    def names(self, names: list[str] | tuple[str, ...]) -> str:
        """"Alice", "Alice et Bob", "Alice, Bob et Chloé"."""
        if len(names) <= 1:
            return "".join(names)
        return f"{', '.join(names[:-1])} {self('and')} {names[-1]}"

    def refusal(self, error: Exception) -> str:
        """A coordinator refusal (``code``, ``params``, French ``str()``) in this language.

        French keeps the coordinator's own sentence, which names the details (a nickname, a
        table); English has one sentence per code and falls back to the French text."""
        detail = str(error)
        if self.lang == "fr":
            return detail
        key = f"refused.{getattr(error, 'code', '')}"
        if key not in MESSAGES:
            return detail
        params = dict(getattr(error, "params", {}) or {})
        params.setdefault("detail", detail)
        try:
            return self(key, **params)
        except (KeyError, IndexError):
            return detail

    def notice(self, code: str, text: str) -> str:
        """A coordinator notice in this language (its French text when the code is unknown)."""
        key = f"notice.{code}"
        return self(key) if key in MESSAGES else text
