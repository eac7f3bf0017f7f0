"""The bot's words in pt-BR (seed 001 quotes some of them verbatim) and the numbered menus (pure)."""

from __future__ import annotations

from datetime import date, datetime

from domain.payments import money

WEEKDAYS = ["segunda", "terça", "quarta", "quinta", "sexta", "sábado", "domingo"]
WEEKDAYS_SHORT = ["seg", "ter", "qua", "qui", "sex", "sáb", "dom"]

WELCOME = "Olá! Sou o assistente de reservas de {unit}."
ASK_DAY = "Para qual dia você quer reservar?"
DAY_HINT = "Responda com o número, ou digite a data (ex.: 25/12)."
NO_DAYS = "Não há horários livres nos próximos dias. Digite uma data (ex.: 25/12) para procurar outra."
TOO_FAR = "Só consigo reservar com até {days} dias de antecedência. Escolha outro dia."
PAST_DAY = "Essa data já passou. Escolha outro dia."
NO_SLOTS_DAY = "Não há horários livres em {day}. Escolha outro dia."
ASK_FIELD = "Qual campo em {day}?"
ANY_FIELD = "Tanto faz"
ASK_TIME = "Horários livres em {day}{where}:"
ASK_DURATION = "Por quanto tempo, a partir das {clock}?"
ACCEPT_HINT = "Responda 1 para aceitar e receber o PIX, ou 2 para escolher outro horário."
ACCEPT_HINT_FREE = "Responda 1 para confirmar, ou 2 para escolher outro horário."
FREE_SUMMARY = "{head} Sem pagamento antecipado. {policy}"
HELD_PIX = ("Segurei {what} para você até {until}. Pague o PIX de {amount} (copia e cola, na próxima mensagem); "
            "o código vale até {charge_until}. Assim que o pagamento cair, a reserva fica confirmada.\n"
            "Se já pagou, responda \"paguei\". Para desistir, responda \"cancelar\".")
CONFIRMED_FREE = "Pronto! Sua reserva de {what} está confirmada."
PAYING_HELP = ("Seu horário ({what}) está segurado até {until}, aguardando o PIX de {amount}. "
               "Responda \"paguei\" se já pagou, \"cancelar\" para desistir, ou \"menu\" para escolher outro horário.")
VERIFYING = ("Certo! Vou conferir o pagamento. O horário fica congelado até {until} enquanto a equipe confere; "
             "assim que o PIX aparecer no banco, a reserva é confirmada. Comprovante não confirma a reserva.")
VERIFYING_HELP = ("Estamos conferindo o seu pagamento ({what}); o horário fica congelado até {until}. "
                  "Assim que o PIX aparecer no banco, eu confirmo aqui.")
VERIFYING_NO_CANCEL = ("Como você já disse que pagou, o pagamento está em verificação e não dá para cancelar agora. "
                       "Se o PIX não aparecer até {until}, o horário é liberado.")
VERIFYING_NO_SWAP = "Seu pagamento está em verificação, então não dá para trocar de horário agora."
CANCELLED = "Pronto, cancelei: o horário foi liberado e aquele PIX foi cancelado. Não pague o código que enviei."
NOTHING_TO_CANCEL = "Tudo bem, não há nenhuma reserva pendente. Quando quiser, é só pedir de novo."
CONFIRMED = "Pagamento recebido: sua reserva de {what} está confirmada."
EXPIRED = ("O prazo para pagar a reserva de {what} venceu e o horário foi liberado. Se quiser, é só pedir de novo.")
DROPPED = "Horário liberado pela equipe: a reserva de {what} foi cancelada. Não pague o código que enviei."
ENDED = "A reserva de {what} não está mais ativa."
TAKEN = "Esse horário acabou de ser reservado por outra pessoa. Os horários livres mais próximos:"
TAKEN_NONE = "Esse horário acabou de ser reservado por outra pessoa e não há horário livre por perto."
WAITLIST_OPTION = "Entrar na lista de espera das {clock} no {field}"
ASK_CPF = "Para entrar na lista de espera, me diga o seu CPF (só os números)."
BAD_CPF = "Esse CPF não parece válido. Digite os 11 números do CPF, ou \"cancelar\"."
WAITLIST_JOINED = ("Pronto, você está na lista de espera das {clock} de {day} no {field} (posição {position}). "
                   "Se o horário liberar, eu mando aqui a oferta com o PIX.")
WAITLIST_CLOSED = "A lista de espera desse horário já fechou (falta pouco para o jogo). Escolha outro horário."
OFFER = ("Boa notícia: liberou o horário da sua lista de espera! {what}. Ele está segurado para você até {until}. "
         "Pague o PIX de {amount} (copia e cola, na próxima mensagem) para garantir.\n"
         "Se já pagou, responda \"paguei\". Para desistir, responda \"cancelar\".")
OFFER_FREE = "Boa notícia: liberou o horário da sua lista de espera! {what}. Responda 1 para confirmar."
SWAP_ASK = "Responda 1 para trocar (o PIX antigo é cancelado e o horário antigo liberado) ou 2 para manter o atual."
OPEN_HOLD_ELSEWHERE = ("Já existe um horário reservado aguardando pagamento para este cliente. Termine ou cancele esse "
                       "pedido antes de reservar outro, ou fale com a recepção.")
SWAP_KEPT = "Tudo bem, mantive o seu horário atual."
PIX_FAILED_AGAIN = "Não consegui gerar o PIX agora. Tente de novo em instantes."
UNAVAILABLE = "Esse horário não pode mais ser reservado pelo WhatsApp."
NOT_UNDERSTOOD = "Não entendi. Responda com o número de uma opção (ou \"cancelar\" para recomeçar)."
IMAGE_NOTHING_DUE = "Recebi a imagem, mas você não tem nenhum PIX pendente comigo."
BUSY = "Tive um problema para responder agora. Pode repetir daqui a pouco?"


def clock(local: datetime) -> str:
    """19h, 19h30 (as the seed writes times)."""
    return f"{local.hour}h{local.minute:02d}" if local.minute else f"{local.hour}h"


def hhmm(local: datetime) -> str:
    return f"{local:%H:%M}"


def day_label(d: date, today: date) -> str:
    """"hoje (seg 07/12)", "amanhã (ter 08/12)", "sáb 12/12"."""
    short = f"{WEEKDAYS_SHORT[d.weekday()]} {d:%d/%m}"
    if d == today:
        return f"hoje ({short})"
    if d.toordinal() == today.toordinal() + 1:
        return f"amanhã ({short})"
    return short


def slot_label(field: str, local: datetime, today: date) -> str:
    """"Campo 1, sábado às 19h" ("hoje às 19h" for today)."""
    d = local.date()
    when = "hoje" if d == today else "amanhã" if d.toordinal() == today.toordinal() + 1 else \
        f"{WEEKDAYS[d.weekday()]} {d:%d/%m}"
    return f"{field}, {when} às {clock(local)}"


def hours_label(slots: int, slot_minutes: int) -> str:
    minutes = slots * slot_minutes
    if minutes % 60 == 0:
        h = minutes // 60
        return f"{h} hora" + ("s" if h > 1 else "")
    return f"{minutes} minutos"


def menu(head: str, options: list[str], tail: str | None = None) -> str:
    """A numbered menu (no buttons: RN-ATD-09)."""
    lines = [head, *(f"{i} {o}" for i, o in enumerate(options, 1))]
    if tail:
        lines.append(tail)
    return "\n".join(lines)


__all__ = ["money"]
